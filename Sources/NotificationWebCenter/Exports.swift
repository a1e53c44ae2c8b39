// The secret, its files and the center's error type live in NotificationWebCenterFiles, which `unotify center` uses
// without the HTTP server; users of the center get them from here.
@_exported import NotificationWebCenterFiles
