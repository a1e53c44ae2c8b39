/// How precise a location a GeoClue2 client asks for: GeoClue's `GClueAccuracyLevel`.
///
/// The client sets it as its `RequestedAccuracyLevel`; GeoClue picks its sources from it (only ``exact`` uses GPS,
/// and so GeoClue's NMEA source) and the agent or `geoclue.conf` may grant less.
///
/// ```swift
/// let configuration = GeoClueConfiguration(desktopID: "unotifyd", accuracyLevel: .street)
/// ```
public struct GeoClueAccuracyLevel: RawRepresentable, Sendable, Hashable, Comparable {
    /// GeoClue's number for the level, as sent over D-Bus (`u`).
    public var rawValue: UInt32

    /// Creates a level from GeoClue's number.
    ///
    /// - Parameter rawValue: 0 (none), 1 (country), 4 (city), 5 (neighborhood), 6 (street) or 8 (exact).
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// No location.
    public static let none = GeoClueAccuracyLevel(rawValue: 0)
    /// The country.
    public static let country = GeoClueAccuracyLevel(rawValue: 1)
    /// The city.
    public static let city = GeoClueAccuracyLevel(rawValue: 4)
    /// The neighbourhood.
    public static let neighborhood = GeoClueAccuracyLevel(rawValue: 5)
    /// The street.
    public static let street = GeoClueAccuracyLevel(rawValue: 6)
    /// The most exact location available: GPS (a modem's, or NMEA sentences).
    public static let exact = GeoClueAccuracyLevel(rawValue: 8)

    public static func < (lhs: GeoClueAccuracyLevel, rhs: GeoClueAccuracyLevel) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
