import Foundation

/// A notification APNs refused for good (a 4xx answer other than 410): recorded by a server-mode worker and never
/// sent again.
///
/// ```swift
/// for letter in try await store.deadLetters(deviceID: "user-42-phone", limit: 20) {
///     print(letter.requestIdentifier, letter.status ?? 0, letter.reason)  // "promo 400 BadTopic"
/// }
/// ```
public struct DeadLetter: Sendable, Hashable, Codable {
    /// The row's number, in the order letters were recorded (0 for one not recorded yet).
    public var id: Int64
    /// The device it was for.
    public var deviceID: String
    /// The request's identifier.
    public var requestIdentifier: String
    /// The `apns-id` it was sent with.
    public var apnsID: String
    /// The HTTP status of the refusal; `nil` when none came.
    public var status: Int?
    /// APNs's reason, such as `BadTopic`.
    public var reason: String
    /// When the worker recorded it.
    public var date: Date

    /// Creates a letter.
    public init(
        id: Int64 = 0, deviceID: String, requestIdentifier: String, apnsID: String, status: Int?, reason: String,
        date: Date
    ) {
        self.id = id
        self.deviceID = deviceID
        self.requestIdentifier = requestIdentifier
        self.apnsID = apnsID
        self.status = status
        self.reason = reason
        self.date = date
    }
}
