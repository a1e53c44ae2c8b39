import Foundation

/// What to do with a fire that fell due while nothing could deliver it (machine off or asleep, the clock jumped
/// forward, no process running the engine).
///
/// Whatever the policy, a repeating request is delivered at most once for all the periods it missed and then
/// goes on with its schedule.
public enum MissedFirePolicy: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Deliver it late, once. The default, and what Apple's system is believed to do.
    case deliver
    /// Deliver it only when it is at most this many seconds late; otherwise skip it.
    case deliverIfWithin(TimeInterval)
    /// Never deliver a late fire.
    case skip

    /// Whether a fire that is `lateness` seconds late should be delivered.
    public func shouldDeliver(lateness: TimeInterval) -> Bool {
        switch self {
        case .deliver: true
        case .deliverIfWithin(let limit): lateness <= limit
        case .skip: lateness <= Self.onTimeTolerance
        }
    }

    /// How late a fire may be and still count as on time rather than missed.
    public static let onTimeTolerance: TimeInterval = 1

    public var description: String {
        switch self {
        case .deliver: "deliver"
        case .deliverIfWithin(let seconds): "within:\(seconds.formatted(.number.grouping(.never)))"
        case .skip: "skip"
        }
    }

    /// Parses `deliver`, `skip` or `within:<seconds>` (also `within:<n>s|m|h`).
    public init?(argument: String) {
        switch argument {
        case "deliver": self = .deliver
        case "skip": self = .skip
        default:
            guard argument.hasPrefix("within:"), let seconds = parseDuration(String(argument.dropFirst(7))) else {
                return nil
            }
            self = .deliverIfWithin(seconds)
        }
    }
}

/// Parses a duration such as `90`, `90s`, `5m`, `2h`, `1d` or `1.5s` into seconds.
public func parseDuration(_ text: String) -> TimeInterval? {
    let units: [Character: TimeInterval] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
    guard let last = text.last else { return nil }
    if let unit = units[last] {
        return Double(text.dropLast()).map { $0 * unit }
    }
    return Double(text)
}
