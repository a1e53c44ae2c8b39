import ArgumentParser
import Foundation
import NotificationModel

/// `unotify categories`: the app's categories and their actions.
struct Categories: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Set or list the app's notification categories.", subcommands: [Set.self, List.self])

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace the app's categories as a whole.",
            discussion: """
                JSON: [{"identifier": "reminder", "options": ["customDismissAction"], "actions": \
                [{"identifier": "done", "title": "Done", "options": ["foreground"]}, \
                {"identifier": "reply", "title": "Reply", "textInput": {"buttonTitle": "Send", "placeholder": "…"}}]}]
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The categories as JSON, a file holding it, or - for standard input.") var source: String

        func run() async throws {
            try await reportingErrors {
                let data: Data
                if source == "-" {
                    data = FileHandle.standardInput.readDataToEndOfFile()
                } else if let file = FileManager.default.contents(atPath: source) {
                    data = file
                } else {
                    data = Data(source.utf8)
                }
                let categories = try CategoryJSON.parse(data)
                let context = try CLIContext(global)
                try await context.backend.setCategories(categories, appID: context.appID)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the app's categories.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await reportingErrors {
                let context = try CLIContext(global)
                let categories = try await context.backend.categories(appID: context.appID)
                if global.json {
                    try CLIOutput.printJSON(categories.map(CategoryJSON.json))
                    return
                }
                if categories.isEmpty { CLIOutput.print("no categories for \(context.appID)") }
                for category in categories {
                    let actions = category.actions.map { "\($0.identifier) \"\($0.title)\"" }.joined(separator: ", ")
                    CLIOutput.print(
                        "\(category.identifier)\(category.sendsDismissAction ? " (customDismissAction)" : ""): \(actions)")
                }
            }
        }
    }
}

/// The JSON form of categories for the CLI.
enum CategoryJSON {
    static let actionOptions: [String: UInt] = ["authenticationRequired": 1, "destructive": 2, "foreground": 4]
    static let categoryOptions: [String: UInt] = [
        "customDismissAction": 1, "allowInCarPlay": 2, "hiddenPreviewsShowTitle": 4, "hiddenPreviewsShowSubtitle": 8,
    ]

    static func parse(_ data: Data) throws -> [CategorySpec] {
        guard let array = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            throw ValidationError("categories must be a JSON array of objects (see `unotify categories set --help`)")
        }
        return try array.map { object in
            guard let identifier = object["identifier"] as? String, !identifier.isEmpty else {
                throw ValidationError("every category needs a non-empty \"identifier\"")
            }
            let actions = try (object["actions"] as? [[String: Any]] ?? []).map { action -> ActionSpec in
                guard let id = action["identifier"] as? String, !id.isEmpty, let title = action["title"] as? String else {
                    throw ValidationError("every action of '\(identifier)' needs \"identifier\" and \"title\"")
                }
                var spec = ActionSpec(
                    identifier: id, title: title, options: try bits(action["options"], actionOptions, "action \(id)"))
                if let input = action["textInput"] as? [String: Any] {
                    spec.textInput = ActionSpec.TextInput(
                        buttonTitle: input["buttonTitle"] as? String ?? "Send", placeholder: input["placeholder"] as? String ?? "")
                }
                return spec
            }
            let ids = actions.map(\.identifier)
            guard Swift.Set(ids).count == ids.count else {
                throw ValidationError("category '\(identifier)' has two actions with the same identifier")
            }
            return CategorySpec(
                identifier: identifier, actions: actions, intentIdentifiers: object["intentIdentifiers"] as? [String] ?? [],
                options: try bits(object["options"], categoryOptions, "category \(identifier)"))
        }
    }

    static func json(_ category: CategorySpec) -> [String: Any] {
        [
            "identifier": category.identifier,
            "options": categoryOptions.filter { category.options & $0.value != 0 }.keys.sorted(),
            "actions": category.actions.map { action in
                var object: [String: Any] = [
                    "identifier": action.identifier, "title": action.title,
                    "options": actionOptions.filter { action.options & $0.value != 0 }.keys.sorted(),
                ]
                if let input = action.textInput {
                    object["textInput"] = ["buttonTitle": input.buttonTitle, "placeholder": input.placeholder]
                }
                return object
            },
        ]
    }

    private static func bits(_ value: Any?, _ names: [String: UInt], _ owner: String) throws -> UInt {
        var result: UInt = 0
        for name in value as? [String] ?? [] {
            guard let bit = names[name] else {
                throw ValidationError("unknown option '\(name)' for \(owner) (known: \(names.keys.sorted().joined(separator: ", ")))")
            }
            result |= bit
        }
        return result
    }
}
