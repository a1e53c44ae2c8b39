import Foundation
import NotificationLocation
import NotificationModel

/// The protocol between apps (and `unotify`) and the per-user daemon `unotifyd`: one JSON object per line over a
/// Unix-domain socket, and from version 2 on also binary frames (``CompactFrame``) for an add and its reply.
///
/// A connection starts with ``ClientMessage/hello(_:)``, naming the oldest and newest versions the client speaks;
/// the daemon answers ``ServerMessage/welcome(_:)`` with the newest version both speak or, when they share none, a
/// ``ServerMessage/failure(id:_:)`` with code `protocolMismatch` and closes. Then the
/// client sends requests with ids and gets one reply per id, in any order; a client that attached as its app's
/// running process also receives events (`willPresent`, `didReceive`) and answers them, as does one that attached
/// a receiver of background pushes or a service extension.
public enum WireProtocol {
    /// The newest version this build speaks: 2, which adds ``CompactFrame``s to version 1's JSON lines. Bump it for
    /// any change of the messages below that an older peer would misread.
    public static let version = 2

    /// The oldest version this build still speaks: clients and daemons of version 1 (JSON lines only) are served.
    public static let oldestVersion = 1

    /// The version two peers use: the newest both speak, or `nil` when they share none.
    ///
    /// - Parameters:
    ///   - oldest: The oldest version the peer speaks (``Hello/protocolVersion``).
    ///   - newest: The newest version the peer speaks (``Hello/newestProtocolVersion``, `nil` for a peer of version
    ///     1, which names one version only).
    public static func agreedVersion(oldest: Int, newest: Int?) -> Int? {
        let agreed = min(newest ?? oldest, version)
        return agreed >= max(oldest, oldestVersion) ? agreed : nil
    }

    /// Reads one line from a client: a ``CompactFrame`` or JSON.
    public static func decodeClientMessage(from line: Data) throws -> ClientMessage {
        if CompactFrame.isFrame(line) { return try CompactFrame.clientMessage(from: line) }
        return try decode(ClientMessage.self, from: line)
    }

    /// Reads one line from the daemon: a ``CompactFrame`` or JSON.
    public static func decodeServerMessage(from line: Data) throws -> ServerMessage {
        if CompactFrame.isFrame(line) { return try CompactFrame.serverMessage(from: line) }
        return try decode(ServerMessage.self, from: line)
    }

    /// The longest line the daemon accepts from a client; a longer one closes that connection.
    public static let maximumMessageSize = 1 << 20

    /// The longest line a client accepts from the daemon (a listing of a million requests is larger than that:
    /// listings that big need paging, which a later protocol version may add).
    public static let maximumReplySize = 1 << 30

    /// Encodes a message as one line of JSON, newline included.
    public static func encode<T: Encodable>(_ message: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = .withoutEscapingSlashes
        var data = try encoder.encode(message)
        data.append(0x0A)
        return data
    }

    /// Decodes one line of JSON.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try decoder.decode(type, from: data)
    }
}

/// What a client says.
public enum ClientMessage: Codable, Sendable, Hashable {
    /// The first message: protocol version and the app the connection acts for.
    case hello(Hello)
    /// A request; the daemon replies with the same id.
    case request(id: UInt64, WireRequest)
    /// The answer to a ``ServerMessage/willPresent(eventID:_:)`` event; `nil` when the app has nothing to say.
    case presentationAnswer(eventID: UInt64, options: PresentationSet?)
    /// The answer to a ``ServerMessage/didReceive(eventID:_:)`` event: whether the app took the response.
    case responseAck(eventID: UInt64, accepted: Bool)
    /// The answer to a ``ServerMessage/remoteNotification(eventID:_:)`` event: whether the app took the push.
    case remoteNotificationAck(eventID: UInt64, accepted: Bool)
    /// The answer to a ``ServerMessage/serviceExtensionRequest(eventID:_:)`` event: the content the extension
    /// passed to its content handler, `nil` when it has none to give.
    case serviceExtensionContent(eventID: UInt64, content: NotificationPayload?)
    /// The answer to ``ServerMessage/contentExtensionView(eventID:_:)`` (the view's HTML) or
    /// ``ServerMessage/contentExtensionResponse(eventID:_:)`` (the name of a `ContentExtensionResponseOption`); `nil`
    /// when the extension has none.
    case contentExtensionAnswer(eventID: UInt64, answer: String?)
}

/// What the daemon says.
public enum ServerMessage: Codable, Sendable, Hashable {
    case welcome(Welcome)
    case reply(id: UInt64, WireReply)
    /// A request failed (`id` set), or the connection is refused (`id` nil).
    case failure(id: UInt64?, WireFailure)
    /// A notification of the attached app falls due: how should it be presented?
    case willPresent(eventID: UInt64, DeliveredNotification)
    /// A person answered one of the attached app's notifications.
    case didReceive(eventID: UInt64, ResponseSpec)
    /// A push with `content-available` for the app, sent after ``WireRequest/attachRemoteReceiver``.
    case remoteNotification(eventID: UInt64, RemoteNotification)
    /// A push with `mutable-content` for the app's in-process service extension, sent after
    /// ``WireRequest/attachServiceExtension``; answered with ``ClientMessage/serviceExtensionContent(eventID:content:)``.
    case serviceExtensionRequest(eventID: UInt64, RequestSpec)
    /// The extension working on that event's push is about to run out of time.
    case serviceExtensionTimeWillExpire(eventID: UInt64)
    /// The daemon no longer waits for that event's extension.
    case serviceExtensionFinished(eventID: UInt64)
    /// The web center asks the app's in-process content extension, attached with
    /// ``WireRequest/attachContentExtension(categories:allowsNetwork:)``, to draw a notification; answered with
    /// ``ClientMessage/contentExtensionAnswer(eventID:answer:)``.
    case contentExtensionView(eventID: UInt64, DeliveredNotification)
    /// A person pressed an action below that extension's view; answered with
    /// ``ClientMessage/contentExtensionAnswer(eventID:answer:)``.
    case contentExtensionResponse(eventID: UInt64, ResponseSpec)
}

extension ServerMessage {
    /// Whether the message answers a request (a reply, or a failure with the request's id).
    public var answersRequest: Bool {
        switch self {
        case .reply, .failure(id: _?, _): true
        default: false
        }
    }
}

/// The first message of a connection.
public struct Hello: Codable, Sendable, Hashable {
    /// The oldest protocol version the client speaks (a client of version 1 names only this one).
    public var protocolVersion: Int
    /// The newest protocol version the client speaks; `nil` when it speaks ``protocolVersion`` only. A daemon of
    /// version 1 does not know this field and ignores it, so a newer client reaches it with ``protocolVersion`` 1.
    public var newestProtocolVersion: Int?
    /// The bundle identifier the connection acts for.
    public var appID: String
    public var processID: Int32

    public init(
        protocolVersion: Int = WireProtocol.oldestVersion, newestProtocolVersion: Int? = WireProtocol.version,
        appID: String, processID: Int32
    ) {
        self.protocolVersion = protocolVersion
        self.newestProtocolVersion = newestProtocolVersion
        self.appID = appID
        self.processID = processID
    }
}

/// The daemon's answer to ``Hello``.
public struct Welcome: Codable, Sendable, Hashable {
    /// The version of the connection: the newest one both sides speak (a daemon of version 1 always says 1).
    public var protocolVersion: Int
    public var daemonVersion: String

    public init(protocolVersion: Int = WireProtocol.version, daemonVersion: String) {
        self.protocolVersion = protocolVersion
        self.daemonVersion = daemonVersion
    }
}

/// A request, always on behalf of the connection's app.
public enum WireRequest: Codable, Sendable, Hashable {
    case add(RequestSpec)
    case pendingRequests
    case removePending(identifiers: [String]?)
    case deliveredNotifications
    case removeDelivered(identifiers: [String]?)
    case setCategories([CategorySpec])
    case categories
    case requestAuthorization(AuthorizationSet)
    case setAuthorization(AuthorizationStatus, AuthorizationSet)
    case appState
    case setBadge(Int)
    case history(limit: Int, allApps: Bool)
    case respond(identifier: String, actionIdentifier: String, userText: String?)
    /// Registers the connection as the app's running process (it then receives events).
    case attach
    case detach
    /// The command the daemon runs to hand the app a response while it is not running; `nil` removes it.
    case setLaunchCommand([String]?)
    case status
    /// Registers the app for remote notifications (answered with its registration and device token).
    case registerForRemoteNotifications(bundleDirectory: String?)
    /// Unregisters the app from remote notifications (answered with the ended registration).
    case unregisterForRemoteNotifications
    /// The app's registration for remote notifications.
    case pushRegistration
    /// A location fix for location triggers (from `unotify location`): the daemon evaluates every app's regions.
    case locationDidChange(LocationFix)
    /// The connection takes the app's background pushes (``ServerMessage/remoteNotification(eventID:_:)``).
    case attachRemoteReceiver
    case detachRemoteReceiver
    /// The connection runs the app's service extension (``ServerMessage/serviceExtensionRequest(eventID:_:)``).
    case attachServiceExtension
    case detachServiceExtension
    /// Declares (or with `nil` removes) the app's service extension executable.
    case setServiceExtensionCommand([String]?)
    /// Declares (or with `nil` removes) the app's content extension: its categories and executable, drawn in the web
    /// center.
    case setContentExtension(ContentExtensionDeclaration?)
    /// The connection runs the app's content extension for these categories
    /// (``ServerMessage/contentExtensionView(eventID:_:)``), asked before its declared executable.
    case attachContentExtension(categories: [String], allowsNetwork: Bool)
    case detachContentExtension
    /// A push for the app, as the APNs endpoint takes it (from `unotify push`); answered with its outcome.
    case deliverPush(RemoteNotification)
    /// Many requests of the app, stored in one transaction or not at all; answered with ``WireReply/batchAdded(_:)``.
    case addBatch([RequestSpec])
}

/// A successful reply.
public enum WireReply: Codable, Sendable, Hashable {
    case done
    case pendingRequests([PendingRequest])
    case deliveredNotifications([DeliveredNotification])
    case categories([CategorySpec])
    case granted(Bool)
    case appState(AppState)
    case history([HistoryEntry])
    case responded(routed: Bool)
    case status(DaemonStatus)
    /// An app's registration for remote notifications, if any.
    case pushRegistration(PushRegistration?)
    /// The region crossings a fix caused, of the calling app's requests only.
    case locationEvents([LocationEventReport])
    /// What the daemon did with a push: the raw value of the engine's `PushDeliveryOutcome`.
    case pushDelivered(outcome: String)
    /// What an ``WireRequest/addBatch(_:)`` did: stored all of it, or refused all of it for the requests named.
    case batchAdded(BatchAddReport)
}

/// The answer to ``WireRequest/addBatch(_:)``.
public struct BatchAddReport: Codable, Sendable, Hashable {
    /// A refused request: its index in the message's batch, the engine's error code name and the message.
    public struct Refusal: Codable, Sendable, Hashable {
        public var index: Int
        public var code: String
        public var message: String

        public init(index: Int, code: String, message: String) {
            self.index = index
            self.code = code
            self.message = message
        }
    }

    /// How many requests were stored: all, or 0 when ``refusals`` is not empty.
    public var added: Int
    /// The requests the pending cap discarded.
    public var discarded: [PendingRequest]
    /// Why the batch was refused; empty when it was stored.
    public var refusals: [Refusal]

    public init(added: Int, discarded: [PendingRequest], refusals: [Refusal]) {
        self.added = added
        self.discarded = discarded
        self.refusals = refusals
    }
}

/// A failed request or a refused connection.
public struct WireFailure: Error, Codable, Sendable, Hashable, CustomStringConvertible {
    /// `protocolMismatch`, `malformed`, `forbidden`, `unavailable`, or an engine error code such as
    /// `notificationsNotAllowed`, `invalidTrigger`, `storeFailure`.
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// What `unotify status` shows.
public struct DaemonStatus: Codable, Sendable, Hashable {
    public var daemonVersion: String
    public var protocolVersion: Int
    public var processID: Int32
    public var startedAt: Date
    public var uptime: TimeInterval
    public var storePath: String
    public var socketPath: String
    public var pendingCount: Int
    public var nextFireDate: Date?
    public var lastDelivery: HistoryEntry?
    public var apps: [AppSummary]
    public var connectedClients: Int

    /// One app the daemon knows.
    public struct AppSummary: Codable, Sendable, Hashable {
        public var appID: String
        public var authorization: AuthorizationStatus
        public var pendingCount: Int
        public var running: Bool
        public var launchCommand: [String]?

        public init(appID: String, authorization: AuthorizationStatus, pendingCount: Int, running: Bool, launchCommand: [String]?) {
            self.appID = appID
            self.authorization = authorization
            self.pendingCount = pendingCount
            self.running = running
            self.launchCommand = launchCommand
        }
    }

    public init(
        daemonVersion: String, protocolVersion: Int, processID: Int32, startedAt: Date, uptime: TimeInterval,
        storePath: String, socketPath: String, pendingCount: Int, nextFireDate: Date?, lastDelivery: HistoryEntry?,
        apps: [AppSummary], connectedClients: Int
    ) {
        self.daemonVersion = daemonVersion
        self.protocolVersion = protocolVersion
        self.processID = processID
        self.startedAt = startedAt
        self.uptime = uptime
        self.storePath = storePath
        self.socketPath = socketPath
        self.pendingCount = pendingCount
        self.nextFireDate = nextFireDate
        self.lastDelivery = lastDelivery
        self.apps = apps
        self.connectedClients = connectedClients
    }
}

/// Where the daemon's socket is: `$OPENUN_SOCKET`, else `$XDG_RUNTIME_DIR/openusernotifications/unotifyd.sock`,
/// else `/tmp/openusernotifications-<uid>/unotifyd.sock` (a folder of mode 0700).
public func defaultDaemonSocketPath(environment: [String: String], userID: UInt32) -> String {
    if let path = environment["OPENUN_SOCKET"], !path.isEmpty { return path }
    if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
        return runtime + "/openusernotifications/unotifyd.sock"
    }
    return "/tmp/openusernotifications-\(userID)/unotifyd.sock"
}

/// One region crossing a location fix caused, as the daemon reports it to the app whose request it is.
public struct LocationEventReport: Codable, Sendable, Hashable {
    public var requestIdentifier: String
    public var regionIdentifier: String
    public var crossing: RegionCrossing.Kind
    /// The distance from the region's center, in metres.
    public var distance: Double
    /// Whether the region notifies on this crossing, so the request fires.
    public var fires: Bool

    public init(requestIdentifier: String, regionIdentifier: String, crossing: RegionCrossing.Kind, distance: Double, fires: Bool) {
        self.requestIdentifier = requestIdentifier
        self.regionIdentifier = regionIdentifier
        self.crossing = crossing
        self.distance = distance
        self.fires = fires
    }
}
