import Foundation
import Synchronization

/// Whether an interaction went out from the person or came in to them.
public enum INInteractionDirection: Int, Sendable, Hashable {
    case unspecified = 0
    case outgoing = 1
    case incoming = 2
}

/// An intent that happened, which an app donates to the system: a received message, for example.
///
/// ```swift
/// let interaction = INInteraction(intent: intent, response: nil)
/// interaction.direction = .incoming
/// interaction.donate(completion: nil)
/// ```
///
/// > Note: On Linux there are no Siri suggestions to feed: ``donate(completion:)`` records the interaction in
/// > ``InteractionDonations`` and calls the completion at once, without an error.
open class INInteraction: NSObject, @unchecked Sendable {  // properties set before donation, as Apple's
    public let intent: INIntent
    public let intentResponse: INIntentResponse?
    public var direction: INInteractionDirection = .unspecified
    public var identifier: String = UUID().uuidString
    public var groupIdentifier: String?
    public var dateInterval: DateInterval?

    /// Creates an interaction.
    public init(intent: INIntent, response: INIntentResponse?) {
        self.intent = intent
        intentResponse = response
    }

    /// Donates the interaction: records it, then calls `completion` with `nil`.
    open func donate(completion: (((any Error)?) -> Void)? = nil) {
        InteractionDonations.record(self)
        completion?(nil)
    }

    /// Donates the interaction: records it.
    open func donate() async throws {
        InteractionDonations.record(self)
    }
}

/// The interactions donated in this process, in order: what `INInteraction.donate` records on Linux. An addition
/// of this module, for tests.
///
/// ```swift
/// #expect(InteractionDonations.all.count == 1)
/// ```
public enum InteractionDonations {
    private static let donations = Mutex<[INInteraction]>([])

    /// Every donated interaction.
    public static var all: [INInteraction] { donations.withLock { $0 } }

    /// Forgets the donations.
    public static func removeAll() { donations.withLock { $0.removeAll() } }

    static func record(_ interaction: INInteraction) { donations.withLock { $0.append(interaction) } }
}
