/// Where the device is relative to one region, as far as the fixes so far can tell.
public enum RegionState: String, Sendable, Hashable, Codable, CaseIterable {
    /// No fix has decided yet (none arrived since the trigger was added, or every one fell inside the hysteresis
    /// band).
    case unknown
    /// The last deciding fix was at least the band inside the boundary.
    case inside
    /// The last deciding fix was at least the band outside the boundary.
    case outside
}
