import CDBus
import Dispatch
import Foundation
import Synchronization

#if os(Linux)
import Glibc
#else
#error("DBusConnection: unsupported operating system (libdbus with eventfd and poll is Linux-only here)")
#endif

/// A private connection to a D-Bus message bus, driven by its own I/O thread.
///
/// Everything that touches libdbus runs on one dedicated thread: it sends queued method calls, reads and
/// dispatches incoming messages, completes replies and hands signals out, then blocks in `poll(2)` on the bus
/// socket and an `eventfd` that ``call(_:timeout:)`` and ``close()`` write to. Idle, it costs no wake-ups: the
/// poll has no timeout unless a call is waiting for its reply, and then it wakes at that call's deadline.
///
/// Signals arrive in ``signals()`` streams: signals a peer addresses to this connection (notification servers such
/// as dunst send `ActionInvoked` and `NotificationClosed` only to the connection that called `Notify`) and
/// broadcast signals that match a rule added with ``addMatch(_:)``. Receiving both on the connection that sends
/// the calls is the point of this type.
///
/// Call ``close()`` when done: the I/O thread keeps the connection alive until then.
///
/// ```swift
/// let bus = try DBusConnection.sessionBus()
/// let signals = bus.signals()
/// let reply = try await bus.call(DBusMethodCall(
///     destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
///     interface: "org.freedesktop.Notifications", member: "GetServerInformation"))
/// print(reply.compactMap(\.stringValue))  // ["dunst", "knopwob", "1.9.0 (2022-06-27)", "1.2"]
/// await bus.close()
/// ```
public final class DBusConnection: @unchecked Sendable {
    // Safe to share: `shared` (a Mutex) guards the job queue, the signal subscribers and the closing flag. The
    // libdbus connection (`raw`) and the reading end of the eventfd are used only on the I/O thread once `init`
    // returns; `wakeDescriptor` is written from any thread (an eventfd write is atomic) and closed by the I/O thread
    // only after `closing` is set under the lock, after which nobody writes to it.

    /// The bus-assigned unique name of this connection, such as `:1.7`.
    public let uniqueName: String

    private let raw: OpaquePointer
    private let wakeDescriptor: Int32
    private let shared = Mutex(Shared())
    /// Entered when the I/O thread starts, left when it has closed the connection.
    private let running = DispatchGroup()

    private struct Shared {
        var jobs: [@Sendable (IOContext) -> Void] = []
        var subscribers: [Int: AsyncStream<DBusSignal>.Continuation] = [:]
        var nextSubscriber = 0
        var closing = false
        var finished = false
    }

    /// Connects to the session bus named by `DBUS_SESSION_BUS_ADDRESS`.
    ///
    /// - Parameter environment: Where the address is looked up; the process's environment by default.
    /// - Throws: ``DBusFailure`` with ``DBusFailure/Name/noSessionBus`` when the variable is missing, or the bus's
    ///   error when connecting or registering fails.
    public static func sessionBus(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(DBusFailure) -> DBusConnection {
        guard let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty else {
            throw DBusFailure(name: DBusFailure.Name.noSessionBus, message: "DBUS_SESSION_BUS_ADDRESS is not set")
        }
        return try DBusConnection(address: address)
    }

    /// The system bus's address when `DBUS_SYSTEM_BUS_ADDRESS` does not name one (the D-Bus specification's
    /// default).
    public static let defaultSystemBusAddress = "unix:path=/run/dbus/system_bus_socket"

    /// Connects to the system bus: the one named by `DBUS_SYSTEM_BUS_ADDRESS`, or ``defaultSystemBusAddress``.
    ///
    /// GeoClue2 and other system services live there. Tests point `DBUS_SYSTEM_BUS_ADDRESS` at a private
    /// `dbus-daemon` started with a `<type>system</type>` configuration.
    ///
    /// ```swift
    /// let bus = try DBusConnection.systemBus()
    /// defer { Task { await bus.close() } }
    /// ```
    ///
    /// - Parameter environment: Where the address is looked up; the process's environment by default.
    /// - Throws: ``DBusFailure``: the bus's error when connecting or registering fails (no bus listens at the
    ///   address, or it refuses the connection).
    public static func systemBus(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(DBusFailure) -> DBusConnection {
        let address = environment["DBUS_SYSTEM_BUS_ADDRESS"].flatMap { $0.isEmpty ? nil : $0 }
        return try DBusConnection(address: address ?? defaultSystemBusAddress)
    }

    /// Opens a private connection to the bus at `address` and registers with it (`Hello`), blocking until the bus
    /// answers.
    ///
    /// - Parameter address: A D-Bus address, such as `unix:path=/tmp/dbus-XXXX,guid=...`.
    /// - Throws: ``DBusFailure`` when libdbus cannot be opened (``DBusFailure/Name/libraryUnavailable``), or the bus
    ///   cannot be reached or refuses the connection.
    public init(address: String) throws(DBusFailure) {
        try DBusLibrary.load()
        _ = dbus_threads_init_default()
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let raw = dbus_connection_open_private(address, &error) else {
            throw Self.failure(from: &error, otherwise: "cannot connect to \(address)")
        }
        dbus_connection_set_exit_on_disconnect(raw, 0)
        guard dbus_bus_register(raw, &error) != 0, let name = dbus_bus_get_unique_name(raw) else {
            let failure = Self.failure(from: &error, otherwise: "cannot register with the bus at \(address)")
            dbus_connection_close(raw)
            dbus_connection_unref(raw)
            throw failure
        }
        let descriptor = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard descriptor >= 0 else {
            dbus_connection_close(raw)
            dbus_connection_unref(raw)
            throw DBusFailure(name: DBusFailure.Name.disconnected, message: "eventfd failed: errno \(errno)")
        }
        self.raw = raw
        self.uniqueName = String(cString: name)
        self.wakeDescriptor = descriptor
        dbus_connection_add_filter(raw, Self.filter, Unmanaged.passUnretained(self).toOpaque(), nil)
        running.enter()
        let thread = Thread { [self] in run() }
        thread.name = "DBusKit I/O"
        thread.start()
    }

    /// Calls a method and returns its reply's arguments.
    ///
    /// - Parameters:
    ///   - call: The destination, object, interface, method and arguments.
    ///   - timeout: How long to wait for the reply.
    /// - Returns: The reply's arguments, in order.
    /// - Throws: ``DBusFailure``: the peer's error reply, or ``DBusFailure/Name/timedOut``,
    ///   ``DBusFailure/Name/disconnected`` or ``DBusFailure/Name/invalidArguments``.
    public func call(_ call: DBusMethodCall, timeout: Duration = .seconds(25)) async throws(DBusFailure) -> [DBusValue]
    {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<[DBusValue], DBusFailure>, Never>) in
            let deadline = ContinuousClock.now.advanced(by: timeout)
            let accepted = submit { context in
                context.send(call, deadline: deadline, continuation: continuation)
            }
            if !accepted { continuation.resume(returning: .failure(Self.closedFailure)) }
        }
        return try result.get()
    }

    /// Sends a signal from this connection: broadcast, or to one connection when `destination` is given.
    ///
    /// - Parameters:
    ///   - signal: The object path, interface, member and arguments (its `sender` is ignored: the bus sets it).
    ///   - destination: A unique or well-known name to address the signal to, or `nil` to broadcast it.
    /// - Throws: ``DBusFailure`` with ``DBusFailure/Name/invalidArguments`` or ``DBusFailure/Name/disconnected``.
    public func emit(_ signal: DBusSignal, destination: String? = nil) async throws(DBusFailure) {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<DBusFailure?, Never>) in
            let accepted = submit { context in
                continuation.resume(returning: context.emit(signal, destination: destination))
            }
            if !accepted { continuation.resume(returning: Self.closedFailure) }
        }
        if let result { throw result }
    }

    /// Adds a match rule, so broadcast signals it matches reach ``signals()``.
    ///
    /// - Parameter rule: A match rule, such as `type='signal',interface='org.freedesktop.Notifications'`.
    /// - Throws: ``DBusFailure`` when the bus rejects the rule.
    public func addMatch(_ rule: String) async throws(DBusFailure) {
        _ = try await call(
            DBusMethodCall(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "AddMatch", arguments: [.string(rule)]))
    }

    /// A stream of the signals this connection receives from now on; it finishes when the connection closes.
    public func signals() -> AsyncStream<DBusSignal> {
        let (stream, continuation) = AsyncStream<DBusSignal>.makeStream(bufferingPolicy: .unbounded)
        let key: Int? = shared.withLock { shared in
            guard !shared.finished else { return nil }
            shared.nextSubscriber += 1
            shared.subscribers[shared.nextSubscriber] = continuation
            return shared.nextSubscriber
        }
        guard let key else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.shared.withLock { $0.subscribers.removeValue(forKey: key) }
        }
        return stream
    }

    /// Closes the connection: calls waiting for replies fail with ``DBusFailure/Name/disconnected`` and signal
    /// streams finish. Returns once the I/O thread has closed the connection; calling it again does nothing more.
    public func close() async {
        let wake = shared.withLock { shared in
            defer { shared.closing = true }
            return !shared.closing
        }
        if wake { self.wake() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            running.notify(queue: .global()) { continuation.resume() }
        }
    }

    // MARK: - The I/O thread

    private static let closedFailure = DBusFailure(
        name: DBusFailure.Name.disconnected, message: "the connection is closed")

    /// Queues `job` for the I/O thread; `false` when the connection is closing.
    private func submit(_ job: @escaping @Sendable (IOContext) -> Void) -> Bool {
        let accepted = shared.withLock { shared in
            guard !shared.closing else { return false }
            shared.jobs.append(job)
            return true
        }
        if accepted { wake() }
        return accepted
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, MemoryLayout<UInt64>.size)
    }

    private func run() {
        let context = IOContext(raw: raw)
        var socket: Int32 = -1
        dbus_connection_get_unix_fd(raw, &socket)
        var lostReason = "the bus closed the connection"
        loop: while true {
            let (jobs, closing) = shared.withLock { shared in
                defer { shared.jobs.removeAll() }
                return (shared.jobs, shared.closing)
            }
            for job in jobs { job(context) }
            if closing {
                lostReason = "the connection is closed"
                break
            }
            // Write what is queued and read what has arrived, without blocking; then dispatch: replies complete
            // their calls and the filter hands signals out.
            _ = dbus_connection_read_write(raw, 0)
            while dbus_connection_dispatch(raw) == DBUS_DISPATCH_DATA_REMAINS {}
            guard dbus_connection_get_is_connected(raw) != 0 else { break }
            let timeout = context.expireCalls(now: .now)
            var descriptors = [
                pollfd(
                    fd: socket,
                    events: Int16(POLLIN) | (dbus_connection_has_messages_to_send(raw) != 0 ? Int16(POLLOUT) : 0),
                    revents: 0),
                pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            let polled = poll(&descriptors, 2, timeout)
            if polled < 0, errno != EINTR {
                lostReason = "poll failed: errno \(errno)"
                break loop
            }
            if descriptors[1].revents != 0 {
                var count: UInt64 = 0
                _ = read(wakeDescriptor, &count, MemoryLayout<UInt64>.size)
            }
        }
        let subscribers = shared.withLock { shared in
            shared.closing = true
            shared.finished = true
            defer { shared.subscribers.removeAll() }
            return shared.subscribers.values
        }
        let lost = DBusFailure(name: DBusFailure.Name.disconnected, message: lostReason)
        // Jobs queued after the last look: their calls fail like the ones waiting for replies.
        let late = shared.withLock { shared in
            defer { shared.jobs.removeAll() }
            return shared.jobs
        }
        context.isClosed = true
        for job in late { job(context) }
        context.failAll(lost)
        for subscriber in subscribers { subscriber.finish() }
        dbus_connection_close(raw)
        dbus_connection_unref(raw)
        Glibc.close(wakeDescriptor)
        running.leave()
    }

    /// Hands a signal to every subscriber (on the I/O thread, from the filter).
    private func deliver(_ signal: DBusSignal) {
        shared.withLock { shared in
            for subscriber in shared.subscribers.values { subscriber.yield(signal) }
        }
    }

    private static let filter: DBusHandleMessageFunction = { _, message, userData in
        guard let message, let userData else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
        let connection = Unmanaged<DBusConnection>.fromOpaque(userData).takeUnretainedValue()
        if dbus_message_get_type(message) == DBUS_MESSAGE_TYPE_SIGNAL {
            func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
            connection.deliver(
                DBusSignal(
                    sender: text(dbus_message_get_sender(message)), path: text(dbus_message_get_path(message)),
                    interface: text(dbus_message_get_interface(message)),
                    member: text(dbus_message_get_member(message)),
                    arguments: DBusValue.arguments(of: message)))
        }
        return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
    }

    static func failure(from error: inout CDBus.DBusError, otherwise message: String) -> DBusFailure {
        guard dbus_error_is_set(&error) != 0 else {
            return DBusFailure(name: DBusFailure.Name.disconnected, message: message)
        }
        return DBusFailure(
            name: error.name.map { String(cString: $0) } ?? DBusFailure.Name.disconnected,
            message: error.message.map { String(cString: $0) } ?? message)
    }
}

/// The I/O thread's own state: the calls waiting for replies. Used only on that thread.
final class IOContext {
    let raw: OpaquePointer
    var waiting: [PendingReply] = []
    var isClosed = false

    init(raw: OpaquePointer) { self.raw = raw }

    /// Sends a method call and arranges for its reply (or its deadline) to resume `continuation`.
    func send(
        _ call: DBusMethodCall, deadline: ContinuousClock.Instant,
        continuation: CheckedContinuation<Result<[DBusValue], DBusFailure>, Never>
    ) {
        guard !isClosed else {
            continuation.resume(
                returning: .failure(
                    DBusFailure(name: DBusFailure.Name.disconnected, message: "the connection is closed")))
            return
        }
        guard let message = dbus_message_new_method_call(call.destination, call.path, call.interface, call.member)
        else {
            continuation.resume(
                returning: .failure(DBusFailure(name: DBusFailure.Name.invalidArguments, message: "out of memory")))
            return
        }
        defer { dbus_message_unref(message) }
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(message, &iterator)
        do {
            for argument in call.arguments { try argument.append(to: &iterator) }
        } catch {
            continuation.resume(
                returning: .failure(DBusFailure(name: DBusFailure.Name.invalidArguments, message: error.reason)))
            return
        }
        var pending: OpaquePointer?
        // No libdbus timeout (it would need timeout watches): the deadline is this context's.
        guard dbus_connection_send_with_reply(raw, message, &pending, DBUS_TIMEOUT_INFINITE) != 0, let pending else {
            continuation.resume(
                returning: .failure(
                    DBusFailure(name: DBusFailure.Name.disconnected, message: "cannot send \(call.member)")))
            return
        }
        let reply = PendingReply(pending: pending, deadline: deadline, continuation: continuation, member: call.member)
        waiting.append(reply)
        dbus_pending_call_set_notify(
            pending,
            { _, userData in
                guard let userData else { return }
                Unmanaged<PendingReply>.fromOpaque(userData).takeUnretainedValue().complete()
            }, Unmanaged.passRetained(reply).toOpaque(),
            { userData in
                guard let userData else { return }
                Unmanaged<PendingReply>.fromOpaque(userData).release()
            })
    }

    /// Queues a signal for sending; returns why it could not be, or `nil`.
    func emit(_ signal: DBusSignal, destination: String?) -> DBusFailure? {
        guard !isClosed else {
            return DBusFailure(name: DBusFailure.Name.disconnected, message: "the connection is closed")
        }
        // libdbus aborts the process on an invalid path, interface or member: check them first.
        guard dbus_validate_path(signal.path, nil) != 0, dbus_validate_interface(signal.interface, nil) != 0,
            dbus_validate_member(signal.member, nil) != 0,
            destination.map({ dbus_validate_bus_name($0, nil) != 0 }) ?? true
        else {
            return DBusFailure(
                name: DBusFailure.Name.invalidArguments,
                message: "invalid signal address \(signal.path) \(signal.interface).\(signal.member)")
        }
        guard let message = dbus_message_new_signal(signal.path, signal.interface, signal.member) else {
            return DBusFailure(name: DBusFailure.Name.invalidArguments, message: "out of memory")
        }
        defer { dbus_message_unref(message) }
        if let destination, dbus_message_set_destination(message, destination) == 0 {
            return DBusFailure(name: DBusFailure.Name.invalidArguments, message: "out of memory")
        }
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(message, &iterator)
        do {
            for argument in signal.arguments { try argument.append(to: &iterator) }
        } catch {
            return DBusFailure(name: DBusFailure.Name.invalidArguments, message: error.reason)
        }
        guard dbus_connection_send(raw, message, nil) != 0 else {
            return DBusFailure(name: DBusFailure.Name.disconnected, message: "cannot send \(signal.member)")
        }
        return nil
    }

    /// Fails the calls whose deadline passed, forgets finished ones, and returns the `poll` timeout in
    /// milliseconds until the next deadline (`-1`: none).
    func expireCalls(now: ContinuousClock.Instant) -> Int32 {
        for reply in waiting where !reply.isFinished && reply.deadline <= now {
            reply.cancel()
            reply.finish(
                .failure(DBusFailure(name: DBusFailure.Name.timedOut, message: "no reply to \(reply.member) in time")))
        }
        waiting.removeAll { reply in
            guard reply.isFinished else { return false }
            reply.release()
            return true
        }
        guard let next = waiting.map(\.deadline).min() else { return -1 }
        let (seconds, attoseconds) = (next - now).components
        return Int32(clamping: max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1))
    }

    /// Fails every call still waiting.
    func failAll(_ failure: DBusFailure) {
        for reply in waiting where !reply.isFinished { reply.finish(.failure(failure)) }
        for reply in waiting { reply.release() }
        waiting.removeAll()
    }
}

/// A call waiting for its reply. Used only on the I/O thread.
final class PendingReply {
    private var pending: OpaquePointer?
    let deadline: ContinuousClock.Instant
    let member: String
    private let continuation: CheckedContinuation<Result<[DBusValue], DBusFailure>, Never>
    private(set) var isFinished = false

    init(
        pending: OpaquePointer, deadline: ContinuousClock.Instant,
        continuation: CheckedContinuation<Result<[DBusValue], DBusFailure>, Never>, member: String
    ) {
        self.pending = pending
        self.deadline = deadline
        self.continuation = continuation
        self.member = member
    }

    /// Called by libdbus (during dispatch, on the I/O thread) when the reply arrived.
    func complete() {
        guard let pending, let message = dbus_pending_call_steal_reply(pending) else { return }
        defer { dbus_message_unref(message) }
        if dbus_message_get_type(message) == DBUS_MESSAGE_TYPE_ERROR {
            let name =
                dbus_message_get_error_name(message).map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
            let text = DBusValue.arguments(of: message).first?.stringValue ?? ""
            finish(.failure(DBusFailure(name: name, message: text)))
        } else {
            finish(.success(DBusValue.arguments(of: message)))
        }
    }

    func finish(_ result: Result<[DBusValue], DBusFailure>) {
        guard !isFinished else { return }
        isFinished = true
        continuation.resume(returning: result)
    }

    /// Tells libdbus to stop waiting for the reply (its deadline passed).
    func cancel() {
        if let pending { dbus_pending_call_cancel(pending) }
    }

    /// Drops this side's reference to the libdbus pending call.
    func release() {
        if let pending { dbus_pending_call_unref(pending) }
        pending = nil
    }
}
