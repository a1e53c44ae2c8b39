import NotificationEngine
import NotificationModel

extension UNUserNotificationCenter {
    /// Declares the app's notification content extension: the executable that draws its notifications of
    /// `categories` in the web center of `unotifyd`, and hears the actions pressed below that view first. An addition
    /// of this library: on iOS, an extension bundle's `Info.plist` says this (`UNNotificationExtensionCategory`).
    ///
    /// The executable's `main` calls ``ContentExtensionProcess/run(_:)`` with the app's
    /// ``UNNotificationContentExtension``. Its view runs in a sandboxed frame without network unless `allowsNetwork`
    /// (then `https:` sources and connections are allowed).
    ///
    /// ```swift
    /// try await center.setContentExtension(command: ["/opt/chat/bin/InviteView"], categories: ["invite"])
    /// ```
    /// - Parameters:
    ///   - command: The executable's absolute path and its arguments.
    ///   - categories: The categories (`categoryIdentifier`) whose notifications it draws; at least one.
    ///   - allowsNetwork: Whether its view may load from and connect to `https:` addresses.
    /// - Throws: ``NotificationRequestError`` for a relative path or no category.
    public func setContentExtension(command: [String], categories: [String], allowsNetwork: Bool = false)
        async throws
    {
        let declaration = ContentExtensionDeclaration(
            categories: categories, command: command, allowsNetwork: allowsNetwork)
        try await call { try await $0.setContentExtension(declaration, appID: $1) }
    }

    /// Removes the app's content extension: its notifications are shown plain again. An addition of this library.
    public func removeContentExtension() async throws {
        try await call { try await $0.setContentExtension(nil, appID: $1) }
    }

    /// Registers the app's content extension that runs in this process while it runs: for the notifications of
    /// `categories`, the daemon's web center asks a new instance to draw each (`didReceive(_ notification:)`) and to
    /// answer the actions pressed below its view (`didReceive(_:completionHandler:)`). `nil` unregisters it. An
    /// addition of this library.
    ///
    /// It is asked before the executable of ``setContentExtension(command:categories:allowsNetwork:)``, which draws
    /// while the app does not run. In embedded mode (no daemon) there is no web center and nothing is asked.
    ///
    /// ```swift
    /// await center.setContentExtension(categories: ["invite"]) { InviteView() }
    /// ```
    /// - Parameters:
    ///   - categories: The categories whose notifications it draws.
    ///   - allowsNetwork: Whether its view may load from and connect to `https:` addresses.
    ///   - makeExtension: Makes an instance for each view and each action.
    public func setContentExtension(
        categories: [String], allowsNetwork: Bool = false,
        _ makeExtension: (@Sendable () -> any UNNotificationContentExtension)?
    ) async {
        let backend = backend, app = bundleIdentifier
        guard let makeExtension else {
            await backend.detachContentExtension(appID: app)
            return
        }
        await backend.attachContentExtension(
            { message in await ContentExtensionProcess.answer(message, with: makeExtension()) },
            categories: categories, allowsNetwork: allowsNetwork, appID: app)
    }
}
