import CDBus

/// A value in a D-Bus message: the types a notification server's methods and signals use.
///
/// Appending supports every case except an empty ``array(_:)`` (whose element type cannot be told) and an empty
/// ``structure(_:)``; reading produces ``strings(_:)`` for `as`, ``variantDictionary(_:)`` for `a{sv}`,
/// ``array(_:)`` for other arrays and dictionaries (entries as two-element arrays), ``structure(_:)`` for structs
/// (GeoClue2's `Timestamp` is a `(tt)`), and ``unsupported(_:)`` for types this module does not decode (Unix file
/// descriptors, 16-bit integers).
///
/// ```swift
/// let hints: DBusValue = .variantDictionary(["urgency": .byte(1), "category": .string("im.received")])
/// ```
public indirect enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case boolean(Bool)
    case int32(Int32)
    case uint32(UInt32)
    /// `x`: Unity's launcher entries carry badge counts in it.
    case int64(Int64)
    /// `d`: GeoClue2's latitude, longitude and accuracy.
    case double(Double)
    /// `t`: GeoClue2's timestamps carry seconds and microseconds in it.
    case uint64(UInt64)
    case string(String)
    case objectPath(String)
    /// `as`.
    case strings([String])
    /// `a{sv}`: appended in key order, so messages are reproducible.
    case variantDictionary([String: DBusValue])
    /// `v`.
    case variant(DBusValue)
    /// Any other array, element types alike.
    case array([DBusValue])
    /// A struct, such as `(tt)`: its fields in order.
    case structure([DBusValue])
    /// A value of a type this module does not decode, with its signature.
    case unsupported(String)

    /// The value's D-Bus type signature, such as `u` or `a{sv}`.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .double: "d"
        case .uint64: "t"
        case .string: "s"
        case .objectPath: "o"
        case .strings: "as"
        case .variantDictionary: "a{sv}"
        case .variant: "v"
        case .array(let elements): "a" + (elements.first?.signature ?? "v")
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .unsupported(let signature): signature
        }
    }

    /// The string of a ``string(_:)`` or ``objectPath(_:)``, looking through variants.
    public var stringValue: String? {
        switch self {
        case .string(let value), .objectPath(let value): value
        case .variant(let inner): inner.stringValue
        default: nil
        }
    }

    /// The number of a ``uint32(_:)``, looking through variants.
    public var uint32Value: UInt32? {
        switch self {
        case .uint32(let value): value
        case .variant(let inner): inner.uint32Value
        default: nil
        }
    }

    /// The number of a ``double(_:)``, looking through variants.
    public var doubleValue: Double? {
        switch self {
        case .double(let value): value
        case .variant(let inner): inner.doubleValue
        default: nil
        }
    }

    /// The number of a ``uint64(_:)``, looking through variants.
    public var uint64Value: UInt64? {
        switch self {
        case .uint64(let value): value
        case .variant(let inner): inner.uint64Value
        default: nil
        }
    }

    /// The fields of a ``structure(_:)``, looking through variants.
    public var structureValue: [DBusValue]? {
        switch self {
        case .structure(let fields): fields
        case .variant(let inner): inner.structureValue
        default: nil
        }
    }

    /// The strings of a ``strings(_:)`` (or of an ``array(_:)`` of strings).
    public var stringsValue: [String]? {
        switch self {
        case .strings(let value): value
        case .array(let elements):
            elements.allSatisfy { $0.stringValue != nil } ? elements.compactMap(\.stringValue) : nil
        case .variant(let inner): inner.stringsValue
        default: nil
        }
    }
}

/// libdbus's type codes: `DBUS_TYPE_*` are `((int) 'u')` casts, which Swift does not import.
enum DBusTypeCode {
    static let invalid: Int32 = 0
    static let byte = code("y")
    static let boolean = code("b")
    static let int32 = code("i")
    static let uint32 = code("u")
    static let int64 = code("x")
    static let double = code("d")
    static let uint64 = code("t")
    static let structure = code("r")
    static let string = code("s")
    static let objectPath = code("o")
    static let signature = code("g")
    static let array = code("a")
    static let variant = code("v")
    static let dictEntry = code("e")

    private static func code(_ character: Unicode.Scalar) -> Int32 { Int32(UInt8(ascii: character)) }
}

/// Why a value could not be appended to a message.
struct AppendFailure: Error {
    var reason: String
}

extension DBusValue {
    /// Appends the value at `iterator` (an append iterator of a message or an open container).
    func append(to iterator: inout DBusMessageIter) throws(AppendFailure) {
        switch self {
        case .byte(let value): try Self.appendBasic(DBusTypeCode.byte, value, to: &iterator)
        case .boolean(let value): try Self.appendBasic(DBusTypeCode.boolean, dbus_bool_t(value ? 1 : 0), to: &iterator)
        case .int32(let value): try Self.appendBasic(DBusTypeCode.int32, value, to: &iterator)
        case .uint32(let value): try Self.appendBasic(DBusTypeCode.uint32, value, to: &iterator)
        case .int64(let value): try Self.appendBasic(DBusTypeCode.int64, value, to: &iterator)
        case .double(let value): try Self.appendBasic(DBusTypeCode.double, value, to: &iterator)
        case .uint64(let value): try Self.appendBasic(DBusTypeCode.uint64, value, to: &iterator)
        case .string(let value): try Self.appendString(DBusTypeCode.string, value, to: &iterator)
        case .objectPath(let value): try Self.appendString(DBusTypeCode.objectPath, value, to: &iterator)
        case .strings(let values):
            try Self.container(DBusTypeCode.array, "s", in: &iterator) { (sub) throws(AppendFailure) in
                for value in values { try Self.appendString(DBusTypeCode.string, value, to: &sub) }
            }
        case .variantDictionary(let entries):
            try Self.container(DBusTypeCode.array, "{sv}", in: &iterator) { (array) throws(AppendFailure) in
                for key in entries.keys.sorted() {
                    try Self.container(DBusTypeCode.dictEntry, nil, in: &array) { (entry) throws(AppendFailure) in
                        try Self.appendString(DBusTypeCode.string, key, to: &entry)
                        try DBusValue.variant(entries[key]!).append(to: &entry)
                    }
                }
            }
        case .variant(let inner):
            try Self.container(DBusTypeCode.variant, inner.signature, in: &iterator) { (sub) throws(AppendFailure) in
                try inner.append(to: &sub)
            }
        case .array(let elements):
            guard let first = elements.first else { throw AppendFailure(reason: "an empty array has no element type") }
            try Self.container(DBusTypeCode.array, first.signature, in: &iterator) { (sub) throws(AppendFailure) in
                for element in elements { try element.append(to: &sub) }
            }
        case .structure(let fields):
            guard !fields.isEmpty else { throw AppendFailure(reason: "an empty struct is not a D-Bus type") }
            try Self.container(DBusTypeCode.structure, nil, in: &iterator) { (sub) throws(AppendFailure) in
                for field in fields { try field.append(to: &sub) }
            }
        case .unsupported(let signature):
            throw AppendFailure(reason: "values of type '\(signature)' cannot be appended")
        }
    }

    private static func appendBasic<Value: BitwiseCopyable>(
        _ type: Int32, _ value: Value, to iterator: inout DBusMessageIter
    ) throws(AppendFailure) {
        var value = value
        guard dbus_message_iter_append_basic(&iterator, type, &value) != 0 else {
            throw AppendFailure(reason: "out of memory")
        }
    }

    private static func appendString(_ type: Int32, _ value: String, to iterator: inout DBusMessageIter)
        throws(AppendFailure)
    {
        // libdbus aborts the process on invalid UTF-8 or an embedded NUL; Swift strings are valid UTF-8.
        guard !value.utf8.contains(0) else { throw AppendFailure(reason: "a string contains NUL") }
        let appended = value.withCString { pointer in
            var pointer: UnsafePointer<CChar>? = pointer
            return dbus_message_iter_append_basic(&iterator, type, &pointer)
        }
        guard appended != 0 else { throw AppendFailure(reason: "out of memory") }
    }

    private static func container(
        _ type: Int32, _ signature: String?, in iterator: inout DBusMessageIter,
        _ body: (inout DBusMessageIter) throws(AppendFailure) -> Void
    ) throws(AppendFailure) {
        var sub = DBusMessageIter()
        let opened =
            if let signature {
                signature.withCString { dbus_message_iter_open_container(&iterator, type, $0, &sub) }
            } else {
                dbus_message_iter_open_container(&iterator, type, nil, &sub)
            }
        guard opened != 0 else { throw AppendFailure(reason: "out of memory") }
        do {
            try body(&sub)
        } catch {
            dbus_message_iter_abandon_container(&iterator, &sub)
            throw error
        }
        guard dbus_message_iter_close_container(&iterator, &sub) != 0 else {
            throw AppendFailure(reason: "out of memory")
        }
    }

    /// The arguments of `message`, in order.
    static func arguments(of message: OpaquePointer) -> [DBusValue] {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(message, &iterator) != 0 else { return [] }
        return readAll(&iterator)
    }

    private static func readAll(_ iterator: inout DBusMessageIter) -> [DBusValue] {
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iterator) != DBusTypeCode.invalid {
            values.append(read(&iterator))
            dbus_message_iter_next(&iterator)
        }
        return values
    }

    private static func read(_ iterator: inout DBusMessageIter) -> DBusValue {
        let type = dbus_message_iter_get_arg_type(&iterator)
        switch type {
        case DBusTypeCode.byte: return .byte(basic(&iterator, UInt8(0)))
        case DBusTypeCode.boolean: return .boolean(basic(&iterator, dbus_bool_t(0)) != 0)
        case DBusTypeCode.int32: return .int32(basic(&iterator, Int32(0)))
        case DBusTypeCode.uint32: return .uint32(basic(&iterator, UInt32(0)))
        case DBusTypeCode.int64: return .int64(basic(&iterator, Int64(0)))
        case DBusTypeCode.double: return .double(basic(&iterator, Double(0)))
        case DBusTypeCode.uint64: return .uint64(basic(&iterator, UInt64(0)))
        case DBusTypeCode.structure:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &sub)
            return .structure(readAll(&sub))
        case DBusTypeCode.string, DBusTypeCode.objectPath, DBusTypeCode.signature:
            var pointer: UnsafePointer<CChar>? = nil
            dbus_message_iter_get_basic(&iterator, &pointer)
            let text = pointer.map { String(cString: $0) } ?? ""
            return type == DBusTypeCode.objectPath ? .objectPath(text) : .string(text)
        case DBusTypeCode.variant:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &sub)
            return .variant(read(&sub))
        case DBusTypeCode.array:
            let elementType = dbus_message_iter_get_element_type(&iterator)
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &sub)
            if elementType == DBusTypeCode.string {
                return .strings(readAll(&sub).compactMap(\.stringValue))
            }
            if elementType == DBusTypeCode.dictEntry {
                var entries: [[DBusValue]] = []
                while dbus_message_iter_get_arg_type(&sub) == DBusTypeCode.dictEntry {
                    var entry = DBusMessageIter()
                    dbus_message_iter_recurse(&sub, &entry)
                    entries.append(readAll(&entry))
                    dbus_message_iter_next(&sub)
                }
                let isVariantDictionary = entries.allSatisfy { entry in
                    entry.count == 2 && entry[0].stringValue != nil
                        && {
                            if case .variant = entry[1] { true } else { false }
                        }()
                }
                if isVariantDictionary, currentSignature(&iterator) == "a{sv}" {
                    var dictionary: [String: DBusValue] = [:]
                    for entry in entries {
                        if case .variant(let value) = entry[1] { dictionary[entry[0].stringValue!] = value }
                    }
                    return .variantDictionary(dictionary)
                }
                return .array(entries.map { DBusValue.array($0) })
            }
            return .array(readAll(&sub))
        default:
            return .unsupported(currentSignature(&iterator))
        }
    }

    private static func basic<Value: BitwiseCopyable>(_ iterator: inout DBusMessageIter, _ initial: Value) -> Value {
        var value = initial
        dbus_message_iter_get_basic(&iterator, &value)
        return value
    }

    private static func currentSignature(_ iterator: inout DBusMessageIter) -> String {
        guard let signature = dbus_message_iter_get_signature(&iterator) else { return "" }
        defer { dbus_free(signature) }
        return String(cString: signature)
    }
}
