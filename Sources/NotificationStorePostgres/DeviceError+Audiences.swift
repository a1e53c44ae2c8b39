// The push service's refusals (issue 20, docs/push-service.md).
extension DeviceError.Code {
    /// An account, alias or tag name is empty, longer than ``AudienceLimits/nameLength`` or has control characters.
    public static let invalidName = DeviceError.Code(name: "invalidName")
    /// Binding would give the device more than ``AudienceLimits/aliasesPerDevice`` aliases.
    public static let tooManyAliases = DeviceError.Code(name: "tooManyAliases")
    /// Binding would give the device more than ``AudienceLimits/tagsPerDevice`` tags.
    public static let tooManyTags = DeviceError.Code(name: "tooManyTags")
    /// More device identifiers than one call takes (``AudienceLimits/devicesPerCheck``).
    public static let tooManyDevices = DeviceError.Code(name: "tooManyDevices")
}
