import ArgumentParser
import Foundation

/// `unotify server center`: a one-time link to the worker's push statistics pages (`/center`).
struct ServerCenter: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "center",
        abstract: "Print a one-time link to the worker's push statistics pages in a browser.",
        discussion: """
            Asks the worker for a link (POST /v1/center-links): its token opens one browser session, once, within \
            5 minutes, on that worker, and is not the API's token. The first request exchanges it for a cookie \
            (HttpOnly, SameSite=Strict, path /center) and redirects to the address without it.
            """)

    @OptionGroup var options: ServerOptions
    @Flag(help: "Open the link in the desktop's browser (xdg-open) besides printing it.") var open = false

    func run() async throws {
        try await reportingErrors {
            let client = try options.client()
            let answer = try await client.send("POST", "v1/center-links")
            guard let object = answer.json as? [String: Any], let token = object["token"] as? String else {
                throw CLIError("the server's link is not what this version of unotify reads")
            }
            let link = Self.link(base: client.base, token: token)
            if options.json {
                try CLIOutput.printJSON(["url": link, "expiresAt": object["expiresAt"] as? String ?? ""])
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
