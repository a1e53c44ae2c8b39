import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NotificationWebCenter
import Testing

/// The secret, the session cookie, CSRF and same-origin checks, the security headers and the body limit.
@Suite("Web center access")
struct WebCenterAccessTests {
    @Test("a request without the secret gets 401, with the security headers and no page content")
    func withoutSecret() async throws {
        let fixture = try WebCenterFixture()
        try await fixture.deliver("secret-note", title: "Private title")
        try await fixture.test { client in
            for path in ["/", "/static/center.css", "/attachments/com.example.chat/secret-note/0", "/nowhere"] {
                let response = try await client.execute(uri: path, method: .get)
                #expect(response.status == .unauthorized, "\(path)")
                #expect(response.headers[.contentSecurityPolicy] != nil)
                #expect(!String(buffer: response.body).contains("Private title"))
            }
            let wrong = try await client.execute(uri: "/?token=\(String(repeating: "0", count: 64))", method: .get)
            #expect(wrong.status == .unauthorized)
            #expect(wrong.headers[.setCookie] == nil)
            let forged = try await client.execute(uri: "/", method: .get, headers: [.cookie: "unotify-center=abc"])
            #expect(forged.status == .unauthorized)
        }
    }

    @Test("the link's token sets an HttpOnly SameSite=Strict cookie and redirects to the URL without the token")
    func cookieFlow() async throws {
        let fixture = try WebCenterFixture()
        try await fixture.deliver("n1", title: "Hello from the chat")
        try await fixture.test { client in
            let redirect = try await client.execute(uri: "/?token=\(fixture.secret.hex)&tab=x", method: .get)
            #expect(redirect.status == .seeOther)
            #expect(redirect.headers[.location] == "/?tab=x")
            let setCookie = try #require(redirect.headers[.setCookie])
            #expect(setCookie.hasPrefix("unotify-center="))
            #expect(setCookie.contains("HttpOnly"))
            #expect(setCookie.contains("SameSite=Strict"))
            #expect(!setCookie.contains(fixture.secret.hex))
            let cookie = String(setCookie.split(separator: ";")[0])
            let page = try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie])
            #expect(page.status == .ok)
            #expect(String(buffer: page.body).contains("Hello from the chat"))
            // A bearer request with the secret reads too.
            let bearer = try await client.execute(
                uri: "/", method: .get, headers: [.authorization: "Bearer \(fixture.secret.hex)"])
            #expect(bearer.status == .ok)
            #expect(String(buffer: bearer.body).contains("Hello from the chat"))
            let badBearer = try await client.execute(uri: "/", method: .get, headers: [.authorization: "Bearer nope"])
            #expect(badBearer.status == .unauthorized)
        }
    }

    @Test("every response carries the strict Content-Security-Policy, nosniff and no-referrer")
    func securityHeaders() async throws {
        let fixture = try WebCenterFixture()
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            for path in ["/", "/static/center.css", "/static/center.js", "/no-such-page"] {
                let response = try await client.execute(uri: path, method: .get, headers: [.cookie: session.cookie])
                #expect(
                    response.headers[.contentSecurityPolicy]
                        == "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                        + "connect-src 'self'; frame-src 'self'; frame-ancestors 'none'; form-action 'self'; "
                        + "base-uri 'none'", "\(path)")
                #expect(response.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
                #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
            }
            let missing = try await client.execute(
                uri: "/no-such-page", method: .get, headers: [.cookie: session.cookie])
            #expect(missing.status == .notFound)
        }
    }

    @Test("a cross-site POST is refused with 403 and changes nothing")
    func crossSitePost() async throws {
        let fixture = try WebCenterFixture()
        try await fixture.deliver("n1")
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            let body = session.form([("app", "com.example.chat"), ("id", "n1")])
            var crossSite = session.postHeaders
            crossSite[HTTPField.Name("Origin")!] = "http://evil.example"
            crossSite[HTTPField.Name("Sec-Fetch-Site")!] = "cross-site"
            let refused = try await client.execute(
                uri: "/delivered/dismiss", method: .post, headers: crossSite, body: body)
            #expect(refused.status == .forbidden)
            // Another origin claiming same-origin, and a request without either header.
            var otherOrigin = session.postHeaders
            otherOrigin[HTTPField.Name("Origin")!] = "http://127.0.0.1.evil.example"
            #expect(
                try await client.execute(uri: "/delivered/dismiss", method: .post, headers: otherOrigin, body: body)
                    .status == .forbidden)
            var bare = session.postHeaders
            bare[HTTPField.Name("Origin")!] = nil
            bare[HTTPField.Name("Sec-Fetch-Site")!] = nil
            #expect(
                try await client.execute(uri: "/delivered/dismiss", method: .post, headers: bare, body: body).status
                    == .forbidden)
            // `Origin: null` (what Chromium sends under no-referrer) counts only with Sec-Fetch-Site: same-origin.
            var nullOrigin = session.postHeaders
            nullOrigin[HTTPField.Name("Origin")!] = "null"
            nullOrigin[HTTPField.Name("Sec-Fetch-Site")!] = nil
            #expect(
                try await client.execute(uri: "/delivered/dismiss", method: .post, headers: nullOrigin, body: body)
                    .status == .forbidden)
            // Same origin, but without the session's CSRF token, or with another one.
            let noToken = ByteBuffer(string: "app=com.example.chat&id=n1")
            #expect(
                try await client.execute(
                    uri: "/delivered/dismiss", method: .post, headers: session.postHeaders, body: noToken
                ).status == .forbidden)
            let otherToken = ByteBuffer(string: "csrf=\(String(repeating: "a", count: 64))&app=com.example.chat&id=n1")
            #expect(
                try await client.execute(
                    uri: "/delivered/dismiss", method: .post, headers: session.postHeaders, body: otherToken
                ).status == .forbidden)
            // A bearer request may read but not change.
            var bearer = session.postHeaders
            bearer[.cookie] = nil
            bearer[.authorization] = "Bearer \(fixture.secret.hex)"
            #expect(
                try await client.execute(uri: "/delivered/dismiss", method: .post, headers: bearer, body: body).status
                    == .forbidden)
            #expect(
                try await fixture.scheduler.deliveredNotifications(appID: "com.example.chat").map(\.identifier) == [
                    "n1"
                ])
            // The same form from the center's own page goes through.
            let accepted = try await client.execute(
                uri: "/delivered/dismiss", method: .post, headers: session.postHeaders, body: body)
            #expect(accepted.status == .seeOther)
            #expect(try await fixture.scheduler.deliveredNotifications(appID: "com.example.chat").isEmpty)
        }
    }

    @Test("a body over the limit gets 413; malformed form data gets 400")
    func oversizedAndMalformed() async throws {
        let fixture = try WebCenterFixture()
        try await fixture.deliver("n1")
        try await fixture.test { client in
            let session = try await BrowserSession.open(client, secret: fixture.secret)
            let big = session.form([
                ("app", "com.example.chat"), ("id", "n1"), ("text", String(repeating: "x", count: 70_000)),
            ])
            let tooLarge = try await client.execute(
                uri: "/delivered/respond", method: .post, headers: session.postHeaders, body: big)
            #expect(tooLarge.status == .contentTooLarge)
            #expect(tooLarge.headers[.contentSecurityPolicy] != nil)
            let malformed = ByteBuffer(string: "csrf=\(session.csrfToken)&app=%zz")
            #expect(
                try await client.execute(
                    uri: "/delivered/respond", method: .post, headers: session.postHeaders, body: malformed
                ).status == .badRequest)
            var json = session.postHeaders
            json[.contentType] = "application/json"
            #expect(
                try await client.execute(
                    uri: "/delivered/respond", method: .post, headers: json, body: ByteBuffer(string: "{}")
                ).status == .badRequest)
            #expect(try await fixture.scheduler.deliveredNotifications(appID: "com.example.chat").count == 1)
        }
    }

    @Test("addresses: host:port parses, loopback is told apart, garbage is a clear error")
    func addresses() throws {
        #expect(try WebCenterAddress(parsing: "127.0.0.1:2198").isLoopback)
        #expect(try WebCenterAddress(parsing: "[::1]:0").isLoopback)
        #expect(try WebCenterAddress(parsing: "[::1]:0").description == "[::1]:0")
        #expect(try !WebCenterAddress(parsing: "0.0.0.0:2198").isLoopback)
        for bad in ["127.0.0.1", ":2198", "host:99999", "a b:1"] {
            #expect(throws: WebCenterError.self) { try WebCenterAddress(parsing: bad) }
        }
    }

    @Test("the secret files are written with mode 0600 and read back; a missing file is a clear error")
    func secretFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wc-files-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let files = WebCenterFiles(folder: folder + "/openusernotifications")
        let missing = #expect(throws: WebCenterError.self) { try files.read() }
        #expect(missing?.message.contains("no web center is running") == true)
        let secret = WebCenterSecret.random()
        try files.publish(secret: secret, baseURL: "http://127.0.0.1:2198/")
        let attributes = try FileManager.default.attributesOfItem(atPath: files.tokenPath)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let folderAttributes = try FileManager.default.attributesOfItem(atPath: files.folder)
        #expect((folderAttributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        let contents = try files.read()
        #expect(contents.secret == secret)
        #expect(contents.link == "http://127.0.0.1:2198/?token=\(secret.hex)")
        #expect(!"\(secret)".contains(secret.hex))
        files.remove()
        #expect(!FileManager.default.fileExists(atPath: files.tokenPath))
    }
}
