import Foundation
import Hummingbird
import NotificationEngine
import NotificationModel

/// The Delivered page's routes: the page, attachment images, and the actions a person takes (respond, dismiss,
/// clear), which go through the center's ``ResponseRelay`` exactly as a desktop click does.
struct DeliveredRoutes: Sendable {
    let center: WebCenter

    /// `GET /`.
    func page(context: WebCenterRequestContext) async throws -> Response {
        var groups: [DeliveredPage.AppGroup] = []
        for app in try await center.knownApps() {
            let notifications = try await center.scheduler.deliveredNotifications(appID: app)
            guard !notifications.isEmpty else { continue }
            let unread = try await center.readMarks.unread(appID: app, delivered: notifications)
            var views: [String: ContentExtensions.View] = [:]
            for notification in notifications {
                views[notification.identifier] = await center.contentExtensions.view(of: notification)
            }
            groups.append(
                .init(
                    appID: app, notifications: notifications,
                    categories: try await center.scheduler.categories(appID: app),
                    unread: Set(unread.map(\.identifier)), extensionViews: views))
        }
        let page = DeliveredPage(apps: groups, csrfToken: context.session?.csrfToken ?? "", format: center.format)
        return HTMLPage.response(
            HTMLPage.render(
                title: "Delivered", current: .delivered, csrfToken: context.session?.csrfToken, body: page.render(),
                unread: try await center.unreadTotal()))
    }

    /// `GET /attachments/:app/:notification/:index`: an image attachment of a listed notification, read from the
    /// attachment data store only.
    func attachment(context: WebCenterRequestContext) async throws -> Response {
        let app = try context.parameters.require("app")
        let identifier = try context.parameters.require("notification")
        guard let index = Int(try context.parameters.require("index")), index >= 0 else {
            throw WebCenterError(.badRequest, "an attachment index is a number")
        }
        let listed = try await center.scheduler.deliveredNotifications(appID: app)
        guard let notification = listed.first(where: { $0.identifier == identifier }) else {
            throw WebCenterError(.notFound, "\(app) has no delivered notification '\(identifier)'")
        }
        let attachments = notification.request.content.attachments
        guard attachments.indices.contains(index), let type = DeliveredPage.imageType(attachments[index].type) else {
            throw WebCenterError(.notFound, "'\(identifier)' has no image attachment \(index)")
        }
        let url = attachments[index].url
        guard url.isFileURL, let root = center.configuration.attachmentStoreRoot else {
            throw WebCenterError(.notFound, "the attachment is not in the attachment data store")
        }
        let resolvedRoot = URL(fileURLWithPath: root).resolvingSymlinksInPath().path
        let resolved = url.standardizedFileURL.resolvingSymlinksInPath().path
        guard resolved.hasPrefix(resolvedRoot + "/"), let data = FileManager.default.contents(atPath: resolved) else {
            throw WebCenterError(.notFound, "the attachment is not in the attachment data store")
        }
        return Response(
            status: .ok, headers: [.contentType: type, .cacheControl: "private, max-age=60"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `GET /extension/:app/:notification`: the view a content extension drew for a listed notification, under
    /// its own Content-Security-Policy (``ContentExtensionFrame``), for the page's sandboxed frame.
    func extensionView(context: WebCenterRequestContext) async throws -> Response {
        let app = try context.parameters.require("app")
        let notification = try await delivered(app: app, id: try context.parameters.require("notification"))
        switch await center.contentExtensions.view(of: notification) {
        case .html(let html, let allowsNetwork)?:
            return ContentExtensionFrame.response(html, allowsNetwork: allowsNetwork)
        case .failed(let reason)?:
            throw WebCenterError(.notFound, "the app's content extension could not draw it: it \(reason)")
        case nil:
            throw WebCenterError(.notFound, "no content extension draws '\(notification.identifier)'")
        }
    }

    /// `POST /delivered/respond` (`app`, `id`, `action`, and `text` for text-input actions).
    ///
    /// An action of the category of a notification that a content extension draws goes to the extension first
    /// (`didReceive(_ response:completionHandler:)`); its answer decides:
    /// ``ContentExtensionResponseOption/doNotDismiss`` keeps the notification (marked read, its view drawn again),
    /// ``ContentExtensionResponseOption/dismiss`` removes it without telling the app (the engine's `removeDelivered`), and
    /// ``ContentExtensionResponseOption/dismissAndForwardAction`` hands the action to the app as a desktop click
    /// does. An extension that fails or does not answer in time counts as the last: the person's action is not
    /// lost. Open and Dismiss reach the app directly, as on iOS.
    func respond(context: WebCenterRequestContext) async throws -> Response {
        let form = context.form
        let app = try form.required("app")
        let action = try form.required("action")
        let identifier = try form.required("id")
        if action != ResponseSpec.defaultActionIdentifier, action != ResponseSpec.dismissActionIdentifier {
            let notification = try await delivered(app: app, id: identifier)
            if let (contentExtension, _) = await center.contentExtensions.contentExtension(for: notification) {
                try await respond(
                    notification, action: action, text: form["text"], through: contentExtension)
                return .redirect(to: "/", type: .normal)
            }
        }
        try await forward(app: app, id: identifier, action: action, text: form["text"])
        return .redirect(to: "/", type: .normal)
    }

    /// Hands an action to the content extension that draws the notification and does what its answer says.
    private func respond(
        _ notification: DeliveredNotification, action: String, text: String?,
        through contentExtension: any ContentExtension
    ) async throws {
        let app = notification.appID
        let category = try await center.scheduler.categories(appID: app).first {
            $0.identifier == notification.request.content.categoryIdentifier
        }
        guard let spec = category?.actions.first(where: { $0.identifier == action }) else {
            throw WebCenterError(.refused, "the notification's category has no action '\(action)'")
        }
        let response = ResponseSpec(
            notification: notification, actionIdentifier: action, userText: spec.textInput == nil ? nil : (text ?? ""),
            date: center.scheduler.clock.now)
        let option: ContentExtensionResponseOption
        do {
            option = try await center.contentExtensions.answer(response, by: contentExtension)
        } catch {
            center.logger.warning(
                "a content extension did not answer an action: the app gets it",
                metadata: ["app": "\(app)", "notification": "\(notification.identifier)", "error": "\(error)"])
            option = .dismissAndForwardAction
        }
        switch option {
        case .doNotDismiss:
            try await center.readMarks.markRead(
                appID: app, identifiers: [notification.identifier],
                delivered: try await center.scheduler.deliveredNotifications(appID: app))
            center.contentExtensions.forget(notification)
        case .dismiss:
            try await center.scheduler.removeDelivered(appID: app, identifiers: [notification.identifier])
        case .dismissAndForwardAction:
            try await forward(app: app, id: notification.identifier, action: action, text: text)
        }
    }

    /// A listed notification of an app.
    /// - Throws: ``WebCenterError`` (`notFound`) when the app has no such delivered notification.
    private func delivered(app: String, id: String) async throws -> DeliveredNotification {
        let listed = try await center.scheduler.deliveredNotifications(appID: app)
        guard let notification = listed.first(where: { $0.identifier == id }) else {
            throw WebCenterError(.notFound, "\(app) has no delivered notification '\(id)'")
        }
        return notification
    }

    /// `POST /delivered/dismiss` (`app`, `id`): as closing the desktop popup.
    func dismiss(context: WebCenterRequestContext) async throws -> Response {
        let form = context.form
        try await forward(
            app: try form.required("app"), id: try form.required("id"), action: ResponseSpec.dismissActionIdentifier,
            text: nil)
        return .redirect(to: "/", type: .normal)
    }

    /// `POST /delivered/snooze` (`app`, `id`, `for`: `10min`, `1h` or `tomorrow`): adds a pending request with the
    /// notification's content under ``SnoozeChoice/identifier(snoozing:)`` and the chosen trigger (the engine's
    /// `add`, so it shows on the Scheduled page and fires as any request does), then removes the delivered one (the
    /// engine's `removeDelivered`: its history entry says `removed`, the popup goes). The app is not told, as for a
    /// removal. If the engine refuses the request (the app was denied meanwhile), the notification stays.
    func snooze(context: WebCenterRequestContext) async throws -> Response {
        let form = context.form
        let app = try form.required("app")
        let identifier = try form.required("id")
        let choice = try SnoozeChoice(parsing: try form.required("for"))
        let scheduler = center.scheduler
        let listed = try await scheduler.deliveredNotifications(appID: app)
        guard let notification = listed.first(where: { $0.identifier == identifier }) else {
            throw WebCenterError(.notFound, "\(app) has no delivered notification '\(identifier)'")
        }
        var request = notification.request
        request.identifier = SnoozeChoice.identifier(snoozing: identifier)
        request.trigger = choice.trigger(at: scheduler.clock.now, calendar: scheduler.clock.calendar)
        request.missedFirePolicy = .deliver
        do {
            try await scheduler.add(request, appID: app)
        } catch let error as EngineError {
            throw WebCenterError(.refused, "the notification cannot be snoozed: \(error.message)")
        }
        // Added first, removed second: the pending copy names the same attachment files, so they are kept.
        try await scheduler.removeDelivered(appID: app, identifiers: [identifier])
        return .redirect(to: "/", type: .normal)
    }

    /// `POST /delivered/read` (`app` and `id`: one notification; `app` alone: all of the app's; neither: every
    /// app's): marks delivered notifications read (``ReadMarks``). Nothing reaches the app, as on iOS, where
    /// looking at a notification tells it nothing.
    func markRead(context: WebCenterRequestContext) async throws -> Response {
        let form = context.form
        let apps: [String]
        if let app = form["app"], !app.isEmpty {
            apps = [app]
        } else {
            apps = try await center.scheduler.allApps().map(\.appID)
        }
        let identifier = form["id"].flatMap { $0.isEmpty ? nil : $0 }
        if identifier != nil, form["app"] == nil {
            throw WebCenterError(.badRequest, "the form has no 'app' field")
        }
        for app in apps {
            let delivered = try await center.scheduler.deliveredNotifications(appID: app)
            try await center.readMarks.markRead(
                appID: app, identifiers: identifier.map { [$0] }, delivered: delivered)
        }
        return .redirect(to: "/", type: .normal)
    }

    /// `POST /delivered/clear` (`app`): dismisses each of the app's notifications, as a person clearing them does
    /// (an app whose category has `customDismissAction` hears of each).
    func clear(context: WebCenterRequestContext) async throws -> Response {
        let app = try context.form.required("app")
        for notification in try await center.scheduler.deliveredNotifications(appID: app) {
            do {
                try await center.relay.forward(
                    appID: app, notificationIdentifier: notification.identifier,
                    actionIdentifier: ResponseSpec.dismissActionIdentifier, userText: nil)
            } catch let error as EngineError where error.code == .unknownNotification {
                continue  // answered meanwhile (on the desktop, or by the app)
            }
        }
        return .redirect(to: "/", type: .normal)
    }

    private func forward(app: String, id: String, action: String, text: String?) async throws {
        do {
            try await center.relay.forward(
                appID: app, notificationIdentifier: id, actionIdentifier: action, userText: text)
        } catch let error as EngineError {
            switch error.code {
            case .unknownNotification: throw WebCenterError(.notFound, error.message)
            case .unknownAction: throw WebCenterError(.refused, error.message)
            default: throw error
            }
        }
    }
}
