import PostgresNIO

// Compiling a tag expression to SQL: the text is built from fixed words and `$n` placeholders only; every tag is a
// bind parameter.
extension TagExpression {
    /// The condition on the device row `d`, with its tags appended to `binds`.
    func condition(_ binds: inout PostgresBindings) -> String {
        switch self {
        case .tag(let tag):
            binds.append(tag)
            return "EXISTS (SELECT 1 FROM device_tag t WHERE t.device_id = d.id AND t.tag = $\(binds.count))"
        case .and(let operands):
            return "(" + operands.map { $0.condition(&binds) }.joined(separator: " AND ") + ")"
        case .or(let operands):
            return "(" + operands.map { $0.condition(&binds) }.joined(separator: " OR ") + ")"
        case .not(let operand):
            return "(NOT " + operand.condition(&binds) + ")"
        }
    }

    /// The identifiers of the active devices that match, after `after`, by identifier, at most `limit`.
    func deviceQuery(after: String?, limit: Int) -> PostgresQuery {
        var binds = PostgresBindings()
        let condition = condition(&binds)
        var sql = "SELECT d.id FROM device d WHERE d.active AND " + condition
        if let after {
            binds.append(after)
            sql += " AND d.id > $\(binds.count)"
        }
        binds.append(limit)
        sql += " ORDER BY d.id LIMIT $\(binds.count)"
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }

    /// How many active devices match.
    func countQuery() -> PostgresQuery {
        var binds = PostgresBindings()
        let condition = condition(&binds)
        return PostgresQuery(unsafeSQL: "SELECT count(*) FROM device d WHERE d.active AND " + condition, binds: binds)
    }
}
