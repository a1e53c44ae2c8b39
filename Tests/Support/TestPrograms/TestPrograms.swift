import Foundation

#if os(Linux)
    import Glibc
#elseif os(macOS)
    import Darwin
#else
    #error("TestPrograms: unsupported operating system")
#endif

/// The output of a finished child process.
public struct ProcessOutput: Sendable {
    /// The exit status, or the signal's number when a signal ended the process (9 when ``runProgram(_:_:environment:timeout:)``
    /// killed it after its timeout).
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// A program a test needed that failed: openssl making a certificate or a key.
public struct ProgramFailure: Error, CustomStringConvertible {
    public var description: String
}

/// Runs a program to its end on a thread of its own (never on Swift's cooperative pool, which has one thread per core
/// and runs every test), killing it with SIGKILL after `timeout` seconds.
///
/// ```swift
/// let result = try await runProgram("/usr/bin/curl", ["-s", url], timeout: 120)
/// #expect(result.status == 0, "\(result.stderr)")
/// ```
/// - Parameters:
///   - path: The program's path.
///   - arguments: Its arguments.
///   - environment: Variables set over this process's environment.
///   - timeout: Seconds before the program is killed.
public func runProgram(
    _ path: String, _ arguments: [String], environment: [String: String] = [:], timeout: Double = 60
) async throws -> ProcessOutput {
    let process = TestProcess()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    return await withCheckedContinuation { continuation in
        Thread {
            let killer = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            let stderr = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            killer.cancel()
            continuation.resume(
                returning: ProcessOutput(
                    status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                    stderr: String(decoding: stderr, as: UTF8.self)))
        }.start()
    }
}

/// Runs a blocking call (reading a pipe to its end, a synchronous child process) on a thread of its own, so that it
/// never holds one of the few threads Swift concurrency has (two on a two-core machine): a test blocked there starves
/// the very tasks it waits for, and every other test's.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// ``offPool(_:)`` for a call that cannot fail.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// A new folder under /tmp, `name` and a random suffix; the caller removes it.
public func temporaryFolder(_ name: String) throws -> URL {
    let folder = URL(fileURLWithPath: "/tmp/\(name)-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

/// A self-signed P-256 certificate for localhost and 127.0.0.1 and its key, made with openssl in `folder`: an endpoint
/// serves it, its clients trust it as their only root.
public func makeCertificate(in folder: URL) async throws -> (certificate: String, key: String) {
    let certificate = folder.appendingPathComponent("cert.pem").path
    let key = folder.appendingPathComponent("key.pem").path
    let result = try await runProgram(
        "/usr/bin/openssl",
        [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
            "-out", certificate, "-days", "2", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ])
    guard result.status == 0 else { throw ProgramFailure(description: "openssl req: \(result.stderr)") }
    return (certificate, key)
}

/// An ES256 provider key as Apple hands it out, `AuthKey_<KEYID>.p8` (PKCS#8 PEM), made with openssl in `folder`.
public func makeAuthKey(keyID: String, in folder: URL) async throws -> String {
    let path = folder.appendingPathComponent("AuthKey_\(keyID).p8").path
    let result = try await runProgram(
        "/usr/bin/openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path])
    guard result.status == 0 else { throw ProgramFailure(description: "openssl genpkey: \(result.stderr)") }
    return path
}
