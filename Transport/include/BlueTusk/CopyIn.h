//
// CopyIn.h
//
// Library: BlueTusk/Transport
//
// The writer of a COPY ... FROM STDIN in progress.
//

#ifndef BlueTusk_CopyIn_INCLUDED
#define BlueTusk_CopyIn_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/Parameter.h"
#include "Poco/Types.h"
#include <string>

namespace BlueTusk {

class BlueTusk_Transport_API CopyIn
	/// What Session::copyIn() returns (PostgreSQL docs 55.2.6, COPY): feed it the data in the COPY's
	/// format, then finish():
	///
	///     auto copy = session.copyIn("COPY orders (id, customer) FROM STDIN (FORMAT csv)");
	///     copy->write("1,alice\n2,bob\n");
	///     Poco::UInt64 rows = copy->finish();
	///
	/// write() takes raw text or CSV data (any chunking: rows may span calls); writeRow() takes typed rows
	/// for FORMAT binary (the file header and trailer are written for you; each value is sent in the
	/// binary form of its column's type, given to copyIn() or, when not given, the value's natural type).
	/// Data is sent in CopyData messages of at most 256 KiB as it comes: the client buffers no more, and
	/// a server that reads slowly blocks write() (flow control by TCP). On plain TCP what the server sends
	/// meanwhile is read while a chunk waits and after it: notices go to the notice handler on the
	/// writing thread, so a server sending many (a trigger's RAISE NOTICE) cannot block the COPY.
	///
	/// abort(reason) sends CopyFail: the server rejects the COPY (SQLSTATE 57014) and nothing of it is
	/// kept; the destructor does that when neither finish() nor abort() was called (an exception in the
	/// caller's code unwinding through it). A server error (a malformed row: its CONTEXT names the line)
	/// is thrown as BlueTuskServerException by the write() or writeRow() that sends the next chunk after
	/// it arrived, else by finish(), and ends the COPY (isOpen() false); the session stays usable in
	/// every case. While a
	/// CopyIn is open the session runs no other command (BlueTuskUsageException). Not thread-safe.
{
public:
	virtual ~CopyIn();

	virtual void write(const char* data, std::size_t size) = 0;
	void write(const std::string& data);
		/// Appends raw COPY data (text or CSV format).

	virtual void writeRow(const Parameters& row) = 0;
		/// Appends one row in PostgreSQL's binary COPY format (FORMAT binary); NULL for empty parameters.
		/// Throws BlueTuskTypeException (the row is not sent) when a value has no binary form for its column.

	virtual Poco::UInt64 finish() = 0;
		/// Sends CopyDone and returns the rows the server copied.

	virtual void abort(const std::string& reason) = 0;
		/// Sends CopyFail with reason; the COPY is rolled back. Never throws for the expected rejection.

	virtual bool isOpen() const = 0;
		/// True until finish() or abort(), or until the session is gone (its lease went back to the pool
		/// with the COPY open: the pool closed the session, and every later call but abort() and
		/// isOpen() throws BlueTuskUsageException).

	virtual bool isBinary() const = 0;
		/// The COPY's format is binary (CopyInResponse).
};


namespace Detail {

BlueTusk_Transport_API void checkFieldLength(Poco::UInt64 length, std::size_t column);
	/// Throws BlueTuskTypeException naming the column (0-based here, 1-based in the message) when a field
	/// of length bytes does not fit the COPY binary format's Int32 field length (more than 2^31-1 bytes;
	/// PostgreSQL docs, COPY, "Binary Format"). CopyIn::writeRow() checks every field with it before
	/// anything of the row is written.

} // namespace Detail

} // namespace BlueTusk

#endif // BlueTusk_CopyIn_INCLUDED
