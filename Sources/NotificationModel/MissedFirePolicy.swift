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

/// The longest duration ``parseDuration(_:)`` accepts: 100 years, far beyond any trigger, far inside what a
/// `Duration` or a `Date` can hold.
public let maximumParsedDuration: TimeInterval = 100 * 365.25 * 86_400

/// Parses a duration such as `90`, `90s`, `5m`, `2h`, `1d` or `1.5s` into seconds.
///
/// Returns `nil` for anything that is not a plain decimal number with an optional unit, and for values that are
/// negative, not finite (`nan`, `inf`, `1e309`) or longer than ``maximumParsedDuration``: every caller turns the
/// result into a `Duration` or a `Date`, which trap on such values.
public func parseDuration(_ text: String) -> TimeInterval? {
    // On the UTF-8 bytes: `unotify import` parses one per line, and Character-level checks cost a few percent of it.
    let bytes = text.utf8
    guard let last = bytes.last else { return nil }
    let unit: TimeInterval? =
        switch last {
        case UInt8(ascii: "s"): 1
        case UInt8(ascii: "m"): 60
        case UInt8(ascii: "h"): 3_600
        case UInt8(ascii: "d"): 86_400
        default: nil
        }
    let number = unit == nil ? Substring(text) : Substring(text).dropLast()
    // Digits and one point only: Double(_:) would also take "nan", "inf", hexadecimal and exponents.
    var points = 0
    for byte in number.utf8 {
        if byte == UInt8(ascii: ".") {
            points += 1
        } else if !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
            return nil
        }
    }
    guard !number.isEmpty, points <= 1, let value = Double(number) else { return nil }
    let seconds = value * (unit ?? 1)
    return seconds.isFinite && seconds >= 0 && seconds <= maximumParsedDuration ? seconds : nil
}
