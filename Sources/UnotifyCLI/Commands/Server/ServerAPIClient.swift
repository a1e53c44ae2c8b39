import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// Calls a server-mode worker's HTTP API: JSON in and out, the API's `{"reason", "detail"}` errors turned into one
/// clear line.
struct ServerAPIClient {
    let base: URL
    let token: String
    /// The only certificate authorities an `https://` API's certificate may chain to (`--trust-roots`); `nil` trusts
    /// the system's.
    var trustRoots: [NIOSSLCertificate]? = nil

    /// What the API answered.
    struct Answer {
        var status: Int
        /// The body as JSON (`nil` for an empty body, as 204 has).
        var json: Any?
    }

    /// Sends one request and returns a 2xx answer (or one of the `accepting` statuses).
    ///
    /// - Parameters:
    ///   - method: `GET`, `PUT`, `POST` or `DELETE`.
    ///   - path: The path below the base address, with its segments already percent-encoded.
    ///   - body: A JSON object to send.
    ///   - accepting: Statuses beyond 2xx whose answer the caller reads itself (422 of an atomic batch).
    /// - Throws: ``CLIError`` with the API's reason and detail for another 4xx or 5xx, or what stopped the connection.
    func send(_ method: String, _ path: String, body: [String: Any]? = nil, accepting: Set<Int> = []) async throws
        -> Answer
    {
        guard let url = URL(string: path, relativeTo: base) else { throw CLIError("cannot make an address of \(path)") }
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = HTTPMethod(rawValue: method)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])))
        }
        let data: Data
        let status: Int
        // With trust roots of its own, a client for this request only (a command sends a few), shut down after it.
        let own = trustRoots.map { roots in
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates(roots)
            return HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
        }
        do {
            let response = try await (own ?? HTTPClient.shared).execute(request, timeout: .seconds(30))
            status = Int(response.status.code)
            data = Data(try await response.body.collect(upTo: 16 << 20).readableBytesView)
            try? await own?.shutdown()
        } catch {
            try? await own?.shutdown()
            throw CLIError("cannot reach the server API at \(base.absoluteString): \(error)")
        }
        let json = data.isEmpty ? nil : try? JSONSerialization.jsonObject(with: data)
        guard (200..<300).contains(status) || accepting.contains(status) else {
            let object = json as? [String: Any]
            let reason = object?["reason"] as? String ?? "HTTP \(status)"
            let detail = object?["detail"] as? String ?? String(decoding: data.prefix(200), as: UTF8.self)
            throw CLIError("the server answered \(status) \(reason): \(detail)")
        }
        return Answer(status: status, json: json)
    }

    /// A path segment, percent-encoded (a device or request identifier may hold `/` or spaces).
    static func segment(_ value: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
