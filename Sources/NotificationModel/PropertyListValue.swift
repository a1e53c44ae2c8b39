import Foundation

/// A property-list value: the only kind of value a notification's `userInfo` may carry.
///
/// Apple's framework archives `userInfo` as a property list, so a value that is not a string, number, boolean,
/// date, data, array or string-keyed dictionary makes `add` fail. This enum is the checked, `Sendable` and
/// `Codable` form the engine and store keep.
public enum PropertyListValue: Sendable, Hashable {
    case string(String)
    case integer(Int)
    case double(Double)
    case bool(Bool)
    case date(Date)
    case data(Data)
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])
}

extension PropertyListValue {
    /// Why a value could not be turned into a property list.
    public struct ConversionError: Error, Hashable, Sendable, CustomStringConvertible {
        /// Where in the value the offending element sits, for example `userInfo["when"][2]`.
        public var path: String
        /// The Swift type that is not a property-list type.
        public var typeName: String

        public var description: String {
            "\(path) holds a value of type \(typeName), which is not a property-list type "
                + "(String, Int, Double, Bool, Date, Data, Array, Dictionary with String keys)"
        }
    }

    /// Converts a value of a dynamically typed dictionary (`[AnyHashable: Any]`) into a property-list value.
    ///
    /// - Parameters:
    ///   - value: The value to convert.
    ///   - path: A description of where the value sits, used in the error.
    /// - Throws: ``ConversionError`` when the value, or anything inside it, is not a property-list type.
    public init(converting value: Any, path: String = "value") throws {
        if let number = value as? NSNumber, type(of: value) is NSNumber.Type {
            self = Self.fromNumber(number)
            return
        }
        switch value {
        case let value as Bool: self = .bool(value)
        case let value as String: self = .string(value)
        case let value as Int: self = .integer(value)
        case let value as Double: self = .double(value)
        case let value as Float: self = .double(Double(value))
        case let value as Int8: self = .integer(Int(value))
        case let value as Int16: self = .integer(Int(value))
        case let value as Int32: self = .integer(Int(value))
        case let value as Int64: self = .integer(Int(value))
        case let value as UInt8: self = .integer(Int(value))
        case let value as UInt16: self = .integer(Int(value))
        case let value as UInt32: self = .integer(Int(value))
        case let value as UInt: self = .integer(Int(clamping: value))
        case let value as UInt64: self = .integer(Int(clamping: value))
        case let value as Date: self = .date(value)
        case let value as Data: self = .data(value)
        case let value as [Any]:
            self = .array(try value.enumerated().map { try PropertyListValue(converting: $1, path: "\(path)[\($0)]") })
        case let value as [AnyHashable: Any]:
            self = .dictionary(try Self.convert(dictionary: value, path: path))
        default:
            throw ConversionError(path: path, typeName: String(describing: type(of: value)))
        }
    }

    /// Converts a `userInfo`-style dictionary whose keys must be strings.
    public static func convert(dictionary: [AnyHashable: Any], path: String) throws -> [String: PropertyListValue] {
        var result: [String: PropertyListValue] = [:]
        for (key, element) in dictionary {
            guard let key = key.base as? String else {
                throw ConversionError(path: "\(path) key \(key)", typeName: String(describing: type(of: key.base)))
            }
            result[key] = try PropertyListValue(converting: element, path: "\(path)[\"\(key)\"]")
        }
        return result
    }

    private static func fromNumber(_ number: NSNumber) -> PropertyListValue {
        if number.isJSONBoolean { return .bool(number.boolValue) }
        switch String(cString: number.objCType) {
        case "f", "d": return .double(number.doubleValue)
        default: return .integer(number.intValue)
        }
    }

    /// The value as Foundation types, as an app reads it back from `userInfo`.
    public var foundationValue: Any {
        switch self {
        case .string(let value): return value
        case .integer(let value): return value
        case .double(let value): return value
        case .bool(let value): return value
        case .date(let value): return value
        case .data(let value): return value
        case .array(let values): return values.map(\.foundationValue)
        case .dictionary(let values): return values.mapValues(\.foundationValue)
        }
    }

    /// Builds a value from JSON, as the CLI's `--user-info` and APNs payloads give it.
    ///
    /// Whole numbers become ``integer(_:)``, other numbers ``double(_:)``; `null` is rejected because property
    /// lists have no null.
    public init(json: Any, path: String = "json") throws {
        switch json {
        case let number as NSNumber where type(of: json) is NSNumber.Type: self = Self.fromNumber(number)
        case let value as Bool: self = .bool(value)
        case let value as Int: self = .integer(value)
        case let value as Double: self = .double(value)
        case let value as String: self = .string(value)
        case let value as [Any]:
            self = .array(try value.enumerated().map { try PropertyListValue(json: $1, path: "\(path)[\($0)]") })
        case let value as [String: Any]:
            var result: [String: PropertyListValue] = [:]
            for (key, element) in value { result[key] = try PropertyListValue(json: element, path: "\(path).\(key)") }
            self = .dictionary(result)
        default:
            throw ConversionError(path: path, typeName: json is NSNull ? "null" : String(describing: type(of: json)))
        }
    }

    /// Converts a JSON object into a property-list dictionary.
    public static func convert(json object: [String: Any]) throws -> [String: PropertyListValue] {
        try object.mapValues { try PropertyListValue(json: $0) }
    }

    /// The value as a JSON-compatible Foundation object (dates as ISO 8601 strings, data as base64).
    public var jsonValue: Any {
        switch self {
        case .string(let value): return value
        case .integer(let value): return value
        case .double(let value): return value
        case .bool(let value): return value
        case .date(let value): return value.formatted(.iso8601)
        case .data(let value): return value.base64EncodedString()
        case .array(let values): return values.map(\.jsonValue)
        case .dictionary(let values): return values.mapValues(\.jsonValue)
        }
    }
}

extension PropertyListValue: Codable {
    // Tagged encoding keeps the exact kind (an integer stays an integer, a date stays a date) across the store.
    private enum CodingKeys: String, CodingKey {
        case string = "s", integer = "i", double = "f", bool = "b", date = "t", data = "d", array = "a"
        case dictionary = "o"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let key = container.allKeys.first else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "empty value"))
        }
        switch key {
        case .string: self = .string(try container.decode(String.self, forKey: key))
        case .integer: self = .integer(try container.decode(Int.self, forKey: key))
        case .double: self = .double(try container.decode(Double.self, forKey: key))
        case .bool: self = .bool(try container.decode(Bool.self, forKey: key))
        case .date: self = .date(Date(timeIntervalSince1970: try container.decode(Double.self, forKey: key)))
        case .data: self = .data(try container.decode(Data.self, forKey: key))
        case .array: self = .array(try container.decode([PropertyListValue].self, forKey: key))
        case .dictionary: self = .dictionary(try container.decode([String: PropertyListValue].self, forKey: key))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .string(let value): try container.encode(value, forKey: .string)
        case .integer(let value): try container.encode(value, forKey: .integer)
        case .double(let value): try container.encode(value, forKey: .double)
        case .bool(let value): try container.encode(value, forKey: .bool)
        case .date(let value): try container.encode(value.timeIntervalSince1970, forKey: .date)
        case .data(let value): try container.encode(value, forKey: .data)
        case .array(let value): try container.encode(value, forKey: .array)
        case .dictionary(let value): try container.encode(value, forKey: .dictionary)
        }
    }
}
