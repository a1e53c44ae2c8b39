/// The push service's limits on audiences, enforced by the store (``DeviceError`` beyond them, nothing changed) and
/// stated in docs/push-service.md.
///
/// ```swift
/// guard aliases.count <= AudienceLimits.aliasesPerDevice else { /* refuse */ }
/// ```
public enum AudienceLimits {
    /// The most aliases one device has.
    public static let aliasesPerDevice = 128
    /// The most tags one device has.
    public static let tagsPerDevice = 128
    /// The longest account, alias or tag name, in characters (the shortest is 1).
    public static let nameLength = 128
    /// The most device identifiers one ``PostgresNotificationStore/checkDevices(ids:)`` call takes.
    public static let devicesPerCheck = 100
    /// The most devices one listing (by account, alias) answers; the rest comes with the next page.
    public static let devicesPerPage = 1_000
}
