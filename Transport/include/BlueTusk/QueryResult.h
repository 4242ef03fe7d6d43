//
// QueryResult.h
//
// Library: BlueTusk/Transport
//
// The rows, columns and command tag of one SQL statement.
//

#ifndef BlueTusk_QueryResult_INCLUDED
#define BlueTusk_QueryResult_INCLUDED

#include "BlueTusk/Foundation.h"
#include "Poco/Types.h"
#include <optional>
#include <string>
#include <vector>

namespace BlueTusk {

struct BlueTusk_Transport_API ColumnDescription
	/// One field of a RowDescription message (PostgreSQL docs 55.7).
{
	std::string name;
	Poco::UInt32 typeOid = 0;   /// the data type's OID (25 text, 23 int4, 16 bool, ...)
	Poco::UInt32 tableOid = 0;
	Poco::Int16 columnNumber = 0;
	Poco::Int16 typeSize = 0;
	Poco::Int32 typeModifier = 0;
	Poco::Int16 formatCode = 0; /// 0 text, 1 binary
};

using FieldValue = std::optional<std::string>;
	/// A field in text format; std::nullopt is SQL NULL, distinct from the empty string.

using Row = std::vector<FieldValue>;

struct BlueTusk_Transport_API QueryResult
	/// The result of one statement: its columns and rows (empty for commands without rows) and the
	/// CommandComplete tag ("SELECT 3", "INSERT 0 1", "UPDATE 2").
{
	std::vector<ColumnDescription> columns;
	std::vector<Row> rows;
	std::string commandTag;

	Poco::UInt64 rowsAffected() const;
		/// The row count at the end of the command tag (0 when it has none).

	int columnIndex(const std::string& name) const;
		/// The index of the first column called name, or -1.
};

} // namespace BlueTusk

#endif // BlueTusk_QueryResult_INCLUDED
