//
// BinaryCopyReader.h
//
// Library: BlueTusk/Transport
//
// Typed rows out of PostgreSQL's binary COPY format, fed in chunks of any size.
//

#ifndef BlueTusk_BinaryCopyReader_INCLUDED
#define BlueTusk_BinaryCopyReader_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/QueryResult.h"
#include "Poco/Types.h"
#include <functional>
#include <string>
#include <vector>

namespace BlueTusk {

class BlueTusk_Transport_API BinaryCopyReader
	/// Parses the binary COPY file format (PostgreSQL docs, COPY, "Binary Format": the 11-byte signature,
	/// flags, header extension, then tuples of Int16 field count and Int32-length-prefixed fields, and the
	/// -1 trailer) from data fed in chunks of any size (CopyData messages need not align with rows), and
	/// hands each complete tuple to onRow as a RowView whose columns have the given type OIDs and binary
	/// format, so row.get<T>() decodes them (ValueCodec). Keeps at most one incomplete tuple buffered.
	///
	/// Throws (from feed() and finish()) BlueTuskProtocolException for data that is not binary COPY (a
	/// wrong signature, e.g. a text-format COPY), a field longer than the data allows, or data after the
	/// trailer; BlueTuskUsageException when a tuple's field count differs from columnTypes' size. Not
	/// thread-safe.
{
public:
	BinaryCopyReader(const std::vector<Poco::UInt32>& columnTypes, std::function<void(const RowView&)> onRow);
		/// columnTypes: the type OID of each copied column, in order (TypeOid.h).

	void feed(const char* data, std::size_t size);
		/// Parses what data completes; the rest is kept for the next call.

	void finish() const;
		/// Checks that the trailer was seen and nothing is left over. Throws BlueTuskProtocolException.

	Poco::UInt64 rows() const;
		/// Tuples handed to onRow so far.

private:
	bool parseHeader();
	bool parseTuple();

	std::vector<ColumnDescription> _columns;
	std::function<void(const RowView&)> _onRow;
	std::string _buffer;
	std::size_t _offset = 0;
	bool _headerDone = false;
	bool _trailerSeen = false;
	Poco::UInt64 _rows = 0;
	Row _row;
};

} // namespace BlueTusk

#endif // BlueTusk_BinaryCopyReader_INCLUDED
