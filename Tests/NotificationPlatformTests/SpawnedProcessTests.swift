import Foundation
import NotificationPlatform
import Testing

#if os(Linux)
import Glibc
#endif

@Suite("Spawned processes")
struct SpawnedProcessTests {
    @Test("a child inherits only its standard descriptors: no socket or file of this process")
    func noInheritedDescriptors() async throws {
        // A descriptor open in this process without close-on-exec, as NIO's sockets are.
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socket >= 3)
        defer { close(socket) }
        let child = try SpawnedProcess(
            executable: "/bin/sh", arguments: ["-c", "ls /proc/$$/fd"], environment: ["PATH": "/usr/bin:/bin"])
        let exit = await child.waitForExit(timeout: .seconds(30))
        #expect(exit.status == 0)
        let descriptors = exit.output.split(whereSeparator: \.isNewline).compactMap { Int($0) }.sorted()
        #expect(descriptors == [0, 1, 2])
    }
}
