import Foundation

/// `.apns` files as iOS projects ship them (Xcode's "Simulator Target Bundle" files and plain payloads).
enum Fixtures {
    /// A chat app's message push with a localized body, a thread and a category.
    static let chatMessage = #"""
        {
            "Simulator Target Bundle": "com.example.chat",
            "aps": {
                "alert": {
                    "title": "Anna",
                    "subtitle": "Weekend trip",
                    "loc-key": "MESSAGE_FROM",
                    "loc-args": ["Anna", "3"]
                },
                "badge": 3,
                "sound": "default",
                "thread-id": "conversation-42",
                "category": "MESSAGE",
                "mutable-content": 1,
                "target-content-id": "conversation-42",
                "interruption-level": "time-sensitive",
                "relevance-score": 0.75
            },
            "conversationID": 42,
            "sender": {"name": "Anna", "id": "u-7"}
        }
        """#

    /// The payload Apple's documentation shows, without a target bundle.
    static let appleSample = #"""
        {"aps":{"alert":{"title":"Game Request","subtitle":"Five Card Draw","body":"Bob wants to play poker"},"category":"GAME_INVITATION"},"gameID":"12345678"}
        """#

    /// A critical alert with a named sound.
    static let criticalAlert = #"""
        {
          "Simulator Target Bundle": "com.example.alarm",
          "aps": {
            "alert": "Smoke detected in the kitchen",
            "sound": {"critical": 1, "name": "siren.caf", "volume": 0.9},
            "interruption-level": "critical",
            "filter-criteria": "home"
          }
        }
        """#

    /// A silent refresh.
    static let backgroundRefresh = #"""
        {"Simulator Target Bundle": "com.example.news", "aps": {"content-available": 1}, "feed": "top"}
        """#

    /// Localized title and body with arguments.
    static let localized = #"""
        {"aps": {"alert": {"title-loc-key": "wake.title", "loc-key": "wake.body", "loc-args": [5, "the train"]}}}
        """#
}
