import Foundation
import PostgresNIO

// `unotifyd --server --database URL`: where a worker's database is, written as a libpq-style URL.
extension PostgresNotificationStore {
    /// Why a database URL was refused.
    public struct DatabaseURLError: Error, Hashable, Sendable, CustomStringConvertible {
        /// A sentence naming what is wrong.
        public var description: String
    }

    /// The connection settings a `postgres://` (or `postgresql://`) URL names.
    ///
    /// - `postgres://user:password@db.internal:5432/unotify`: TCP (the port defaults to 5432).
    /// - `postgres://unotify@/unotify?host=/run/postgresql`: the server's Unix socket in that folder
    ///   (`.s.PGSQL.5432`, or the `port` parameter's number).
    /// - `sslmode`: `disable` (the default for sockets), `prefer` (the default for TCP) or `require`.
    ///
    /// ```swift
    /// let configuration = try PostgresNotificationStore.configuration(
    ///     databaseURL: "postgres://unotify@/unotify?host=/run/postgresql")
    /// let store = PostgresNotificationStore(configuration: configuration)
    /// ```
    ///
    /// - Parameter databaseURL: The URL; user name and password may be percent-encoded.
    /// - Returns: The settings for ``init(configuration:owner:logger:)``.
    /// - Throws: ``DatabaseURLError`` for another scheme, no user name or database, or an unknown parameter.
    public static func configuration(databaseURL: String) throws(DatabaseURLError) -> PostgresClient.Configuration {
        guard let components = URLComponents(string: databaseURL),
            ["postgres", "postgresql"].contains(components.scheme?.lowercased() ?? "")
        else {
            throw DatabaseURLError(description: "'\(databaseURL)' is not a postgres:// URL")
        }
        guard let user = components.user?.removingPercentEncoding, !user.isEmpty else {
            throw DatabaseURLError(description: "the database URL names no user (postgres://USER@HOST/DATABASE)")
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw DatabaseURLError(description: "the database URL names no database (postgres://USER@HOST/DATABASE)")
        }
        let password = components.password?.removingPercentEncoding
        var parameters: [String: String] = [:]
        for item in components.queryItems ?? [] {
            guard ["host", "port", "sslmode"].contains(item.name) else {
                throw DatabaseURLError(description: "unknown database URL parameter '\(item.name)' (host, port, sslmode)")
            }
            parameters[item.name] = item.value ?? ""
        }
        var port = components.port ?? 5432
        if let text = parameters["port"] {
            guard let number = Int(text), (1...65_535).contains(number) else {
                throw DatabaseURLError(description: "the database URL's port '\(text)' is not a port number")
            }
            port = number
        }
        guard (1...65_535).contains(port) else {
            throw DatabaseURLError(description: "the database URL's port \(port) is not a port number")
        }
        let socketFolder = parameters["host"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        let host = (components.host?.isEmpty == false ? components.host : nil) ?? parameters["host"]
        var configuration: PostgresClient.Configuration
        if let socketFolder {
            configuration = PostgresClient.Configuration(
                unixSocketPath: socketFolder + "/.s.PGSQL.\(port)", username: user, password: password,
                database: database)
        } else if let host, !host.isEmpty {
            configuration = PostgresClient.Configuration(
                host: host, port: port, username: user, password: password, database: database,
                tls: .prefer(.makeClientConfiguration()))
        } else {
            throw DatabaseURLError(
                description: "the database URL names no host (postgres://USER@HOST/DATABASE or ?host=/socket/folder)")
        }
        switch parameters["sslmode"] {
        case nil: break
        case "disable": configuration.tls = .disable
        case "prefer" where socketFolder == nil: configuration.tls = .prefer(.makeClientConfiguration())
        case "require" where socketFolder == nil: configuration.tls = .require(.makeClientConfiguration())
        case let mode?:
            throw DatabaseURLError(
                description: "sslmode '\(mode)' is not supported here (disable; prefer or require over TCP)")
        }
        return configuration
    }
}
