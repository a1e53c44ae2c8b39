#if os(Linux)
import Glibc
#elseif os(macOS)
import Darwin
#else
#error("ThreadName: unsupported operating system")
#endif

/// The calling thread's name as the kernel knows it (`/proc/<pid>/task/<tid>/comm`, `ps -L`, `perf`).
///
/// Foundation's `Thread.current.name = …` did not always reach the kernel: under load, a thread started from a pool
/// thread kept the name it inherited (`oot.default-qos`), as the engine's thread tests showed.
enum ThreadName {
    /// Names the calling thread; the kernel keeps the first 15 bytes.
    static func setCurrent(_ name: String) {
        #if os(Linux)
        // Glibc's pthread_setname_np is not visible to Swift; the kernel takes the name written to this file.
        guard let file = fopen("/proc/thread-self/comm", "w") else { return }
        fputs(String(decoding: name.utf8.prefix(15), as: UTF8.self), file)
        fclose(file)
        #else
        _ = pthread_setname_np(name)
        #endif
    }
}
