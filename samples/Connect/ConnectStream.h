//
// ConnectStream.h
//
// bluetusk-connect: one query result printed row by row as it arrives (doc/reliability.md, finding 9).
//

#ifndef BlueTusk_Samples_ConnectStream_INCLUDED
#define BlueTusk_Samples_ConnectStream_INCLUDED

#include "BlueTusk/QueryResult.h"
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace BlueTusk {
namespace Samples {

class ResultStream
	/// Prints a result without holding it. JSON: the caller has written the event's line up to its last
	/// member; begin() adds "columns":[...],"rows":[, each row() one array, finish() ],"command_tag":...}
	/// and the newline. Text: the first HELD_ROWS rows are held to size the columns (so a small result
	/// prints as an aligned table), later rows are printed at once with those widths (a wider cell
	/// overflows its column), then "(n rows)". Every cell is escaped (terminalSafe / validUtf8). Not
	/// thread-safe: the caller holds the report's lock from begin() to finish().
{
public:
	static constexpr std::size_t HELD_ROWS = 1000;

	ResultStream(bool json, std::ostream& out);

	void begin(const std::vector<std::string>& columnNames);
	void row(const std::vector<FieldValue>& fields);
		/// One row's fields as text (std::nullopt: NULL).
	void row(const RowView& row);
		/// row() of each field read as std::optional<std::string> (ValueCodec's text form).
	void finish(const std::string& commandTag);
		/// commandTag: JSON "command_tag"; not printed in text mode (the row count is).

	std::size_t rows() const;

private:
	void printHeldRows();
	void printCells(const std::vector<std::string>& cells);

	bool _json;
	std::ostream& _out;
	std::vector<std::string> _header;
	std::vector<std::size_t> _widths;
	std::vector<std::vector<std::string>> _held;
	bool _widthsFixed = false;
	std::size_t _rows = 0;
};

} } // namespace BlueTusk::Samples

#endif // BlueTusk_Samples_ConnectStream_INCLUDED
