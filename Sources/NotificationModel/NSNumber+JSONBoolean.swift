import Foundation

extension NSNumber {
    /// Whether `JSONSerialization` read this number from a JSON `true` or `false`.
    ///
    /// `as? Bool` cannot tell: the `NSNumber` of a JSON 0 or 1 also bridges to `Bool` (on Linux and on Darwin), so a
    /// `"badge": 0` would pass for `false`. A JSON boolean is the one `NSNumber` of type `c` (`char`: CFBoolean's type
    /// on Darwin, `__NSCFBoolean` on Linux); `JSONSerialization` gives JSON numbers other types (`i`, `q`, `Q`, `d`),
    /// measured on Linux for every integer from -1000 to 1000, 0.0, 1.0, -0 and the 64-bit limits.
    ///
    /// ```swift
    /// let object = try JSONSerialization.jsonObject(with: Data(#"{"a": 1, "b": true}"#.utf8)) as! [String: Any]
    /// (object["a"] as! NSNumber).isJSONBoolean  // false
    /// (object["b"] as! NSNumber).isJSONBoolean  // true
    /// ```
    package var isJSONBoolean: Bool { String(cString: objCType) == "c" }
}
