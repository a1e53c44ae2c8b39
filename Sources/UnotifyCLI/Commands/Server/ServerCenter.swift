import ArgumentParser
import Foundation

/// `unotify server center`: the link to the worker's push statistics pages (`/center`), with the API's token.
struct ServerCenter: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "center",
        abstract: "Print the link to the worker's push statistics pages in a browser (with the API's token).",
        discussion: """
            The link is the worker's /center page with the API's token as its token parameter; the first request \
            exchanges it for a cookie (HttpOnly, SameSite=Strict, path /center) and redirects to the address without \
            it. The token opens the whole API: do not share the link. The token is checked against the worker \
            (GET /v1/status) before the link is printed.
            """)

    @OptionGroup var options: ServerOptions
    @Flag(help: "Open the link in the desktop's browser (xdg-open) besides printing it.") var open = false

    func run() async throws {
        try await reportingErrors {
            let client = try options.client()
            _ = try await client.send("GET", "v1/status")
            let link = Self.link(base: client.base, token: client.token)
            if options.json {
                try CLIOutput.printJSON(["url": link])
            } else {
                CLIOutput.print(link)
            }
            if open { try Center.openInBrowser(link) }
        }
    }

    /// `<base>center?token=<token, percent-encoded>`.
    static func link(base: URL, token: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let encoded = token.addingPercentEncoding(withAllowedCharacters: allowed) ?? token
        let root = base.absoluteString.hasSuffix("/") ? base.absoluteString : base.absoluteString + "/"
        return root + "center?token=" + encoded
    }
}
