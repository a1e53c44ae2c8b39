import ArgumentParser
import Foundation
import Testing

@testable import UnotifyCLI

/// `unotify server center`'s link and options, without a server (PushCenterBrowserTests runs it against a worker's
/// API and opens the link in Chromium).
@Suite("unotify server center")
struct ServerCenterCommandTests {
    @Test(
        "the link is the API's /center with the token percent-encoded",
        arguments: [
            ("http://127.0.0.1:2199/", "s3cret", "http://127.0.0.1:2199/center?token=s3cret"),
            ("http://127.0.0.1:2199", "s3cret", "http://127.0.0.1:2199/center?token=s3cret"),
            (
                "https://push.example/api/", "a+b&c=d #é",
                "https://push.example/api/center?token=a%2Bb%26c%3Dd%20%23%C3%A9"
            ),
        ])
    func link(base: String, token: String, expected: String) throws {
        #expect(ServerCenter.link(base: try #require(URL(string: base)), token: token) == expected)
    }

    @Test(
        "it takes the options of every unotify server subcommand, and --open; a bad --url or no token file is refused")
    func options() throws {
        let parsed = try Unotify.parseAsRoot([
            "server", "center", "--url", "http://127.0.0.1:2299/", "--token-file", "/tmp/t", "--json", "--open",
        ])
        let command = try #require(parsed as? ServerCenter)
        #expect(command.options.url == "http://127.0.0.1:2299/" && command.options.json && command.open)
        #expect(throws: (any Error).self) {
            try Unotify.parseAsRoot(["server", "center", "--url", "ftp://x", "--token-file", "/tmp/t"])
        }
        #expect(throws: (any Error).self) {
            try Unotify.parseAsRoot(["server", "center", "--token-file", ""])
        }
    }
}
