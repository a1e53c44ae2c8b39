import CDBus
import Foundation

/// The system's libdbus-1, opened at run time rather than linked.
///
/// Building DBusKit needs no libdbus development package, and a program that uses it starts on a machine without
/// libdbus: the library is opened, once per process, by the first ``DBusConnection``, which throws
/// ``DBusFailure/Name/libraryUnavailable`` when it cannot be (callers such as the desktop presenter then fall back to
/// the terminal). Debian and Ubuntu ship it as `libdbus-1-3`, Fedora as `dbus-libs`, Arch in `dbus`.
///
/// ```swift
/// do {
///     try DBusLibrary.load()
/// } catch {
///     print(error.message)  // "libdbus-1.so.3: cannot open shared object file: No such file or directory"
/// }
/// ```
public enum DBusLibrary {
    /// The environment variable that names the library file to open instead of `libdbus-1.so.3` (`OPENUN_LIBDBUS`):
    /// for a libdbus outside the loader's path, or to try the fallback by naming a file that does not exist.
    public static let pathVariable = "OPENUN_LIBDBUS"

    /// Opens libdbus-1 and resolves the functions DBusKit calls; later calls answer the first one's result.
    ///
    /// - Parameter environment: Where ``pathVariable`` is looked up (only the first call's counts).
    /// - Throws: ``DBusFailure`` named ``DBusFailure/Name/libraryUnavailable``, with the loader's reason.
    public static func load(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(DBusFailure) {
        guard let reason = cdbus_load(environment[pathVariable] ?? "") else { return }
        throw DBusFailure(name: DBusFailure.Name.libraryUnavailable, message: String(cString: reason))
    }
}
