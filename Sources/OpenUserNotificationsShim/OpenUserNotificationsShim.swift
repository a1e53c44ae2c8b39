// Import this module instead of `UserNotifications` to compile the same code on Apple platforms and on Linux.
#if canImport(UserNotifications)
@_exported import UserNotifications
#else
@_exported import Foundation
@_exported import OpenUserNotifications
#endif
