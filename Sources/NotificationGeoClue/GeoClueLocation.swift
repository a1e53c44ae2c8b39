import DBusKit
import Foundation
import NotificationLocation

/// The properties of a GeoClue2 location object (`org.freedesktop.GeoClue2.Location`), decoded from the
/// `a{sv}` that `org.freedesktop.DBus.Properties.GetAll` returns.
///
/// GeoClue gives latitude and longitude in degrees, accuracy in metres and the time of measurement as a `(tt)`
/// struct of seconds and microseconds since 1970. `Altitude` is `-Double.greatestFiniteMagnitude` when unknown.
///
/// ```swift
/// let location = try GeoClueLocation(properties: [
///     "Latitude": .double(48.8725), "Longitude": .double(2.3508), "Accuracy": .double(5),
///     "Timestamp": .structure([.uint64(1_795_264_519), .uint64(0)]),
/// ])
/// let fix = location.fix(receivedAt: Date())  // the timestamp is known, so it is used
/// ```
public struct GeoClueLocation: Sendable, Hashable {
    /// Degrees north.
    public var latitude: Double
    /// Degrees east.
    public var longitude: Double
    /// Metres; GeoClue reports 0 when its source says nothing.
    public var accuracy: Double
    /// Metres above sea level, or `nil` when GeoClue does not know.
    public var altitude: Double?
    /// When GeoClue says the position was measured, or `nil` when the object has no usable `Timestamp`.
    public var timestamp: Date?

    /// Creates a location from its fields.
    ///
    /// - Parameters:
    ///   - latitude: Degrees north.
    ///   - longitude: Degrees east.
    ///   - accuracy: Metres.
    ///   - altitude: Metres, `nil` when unknown.
    ///   - timestamp: When it was measured, `nil` when unknown.
    public init(latitude: Double, longitude: Double, accuracy: Double, altitude: Double? = nil, timestamp: Date? = nil)
    {
        self.latitude = latitude
        self.longitude = longitude
        self.accuracy = accuracy
        self.altitude = altitude
        self.timestamp = timestamp
    }

    /// Decodes a location object's properties.
    ///
    /// - Parameter properties: The `GetAll` reply's dictionary; values may be wrapped in variants.
    /// - Throws: ``GeoClueError`` with ``GeoClueError/Code/invalidReply`` when `Latitude`, `Longitude` or
    ///   `Accuracy` is missing or not a double. A missing or malformed `Timestamp` or `Altitude` is not an error.
    public init(properties: [String: DBusValue]) throws(GeoClueError) {
        func number(_ name: String) throws(GeoClueError) -> Double {
            guard let value = properties[name]?.doubleValue else {
                throw GeoClueError(
                    .invalidReply,
                    message: "the location has no double '\(name)' (got \(properties[name].map { "\($0)" } ?? "none"))")
            }
            return value
        }
        latitude = try number("Latitude")
        longitude = try number("Longitude")
        accuracy = try number("Accuracy")
        altitude = properties["Altitude"]?.doubleValue.flatMap {
            $0.isFinite && $0 > -Double.greatestFiniteMagnitude ? $0 : nil
        }
        timestamp = properties["Timestamp"].flatMap(Self.date(from:))
    }

    /// The date of a `(tt)` timestamp (seconds, microseconds since 1970), or `nil` when it is not one or is zero.
    static func date(from value: DBusValue) -> Date? {
        guard let fields = value.structureValue, fields.count == 2, let seconds = fields[0].uint64Value,
            let microseconds = fields[1].uint64Value, seconds > 0 || microseconds > 0
        else { return nil }
        return Date(timeIntervalSince1970: Double(seconds) + Double(microseconds) / 1_000_000)
    }

    /// The fix this location reports.
    ///
    /// - Parameter arrival: When the update arrived; the fix's timestamp when GeoClue gave none.
    /// - Returns: A fix with the location's coordinates, its accuracy as the horizontal accuracy, and its
    ///   timestamp (or `arrival`).
    public func fix(receivedAt arrival: Date) -> LocationFix {
        LocationFix(
            latitude: latitude, longitude: longitude, horizontalAccuracy: accuracy, timestamp: timestamp ?? arrival)
    }
}
