// On Apple platforms `import UserNotifications` brings all of Foundation, URLSession included; on Linux URLSession
// lives in FoundationNetworking. Re-exporting it lets a service extension that downloads its attachment compile
// with only its import changed.
@_exported import Foundation

#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif
