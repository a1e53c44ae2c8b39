extension SoundFileInfo {
    /// The reasons this file breaks Apple's notification sound rule (``NotificationSoundRule/apple``); empty when
    /// iOS would play it.
    ///
    /// ```swift
    /// if let reason = try SoundFileInfo(contentsOf: url).violations.first { logger.notice("default sound: \(reason)") }
    /// ```
    public var violations: [String] {
        NotificationSoundRule.apple.violations(of: self)
    }
}
