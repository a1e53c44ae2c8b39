import Foundation
import NotificationModel
import Synchronization

/// Decides, for each request, which fault rule (``APNsFaultRule``) applies: the first matching rule whose fraction
/// picks the request. Each rule draws from a generator seeded with its ``APNsFaultRule/seed``, advanced once per
/// request it matches, so a given seed picks the same requests of a given sequence; changing a rule starts its
/// sequence again.
final class FaultInjector: Sendable {
    private let rules: @Sendable () async -> [APNsFaultRule]
    /// Per rule (by its whole value): the generator's state.
    private let generators = Mutex<[APNsFaultRule: UInt64]>([:])

    init(rules: @escaping @Sendable () async -> [APNsFaultRule]) {
        self.rules = rules
    }

    /// The rules in force now, for ``rule(path:topic:among:)``: the requests of one batch ask them once (in the daemon,
    /// each asking is a read of the store).
    func currentRules() async -> [APNsFaultRule] {
        await rules()
    }

    /// The rule among `current` (``currentRules()``) that applies to a request to `path` with `topic`, if any.
    func rule(path: String, topic: String?, among current: [APNsFaultRule]) -> APNsFaultRule? {
        guard !current.isEmpty else { return nil }
        let token = path.hasPrefix("/3/device/") ? path.dropFirst("/3/device/".count) : nil
        return generators.withLock { generators in
            // Forget the sequences of rules that were removed or changed.
            if generators.count > current.count { generators = generators.filter { current.contains($0.key) } }
            for rule in current where rule.matches(topic: topic, token: token) {
                if rule.fraction >= 1 { return rule }
                var state = generators[rule] ?? rule.seed
                let draw = Self.next(&state)
                generators[rule] = state
                if Double(draw >> 11) / Double(1 << 53) < rule.fraction { return rule }
            }
            return nil
        }
    }

    /// Whether a ``APNsFaultRule/Action/shutdown`` rule is in force: new connections are then closed at once.
    func refusesConnections() async -> Bool {
        await rules().contains { $0.action == .shutdown }
    }

    /// SplitMix64: small, fast, and the same on every platform.
    private static func next(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
