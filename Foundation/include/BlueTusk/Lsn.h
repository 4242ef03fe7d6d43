//
// Lsn.h
//
// Library: BlueTusk/Foundation
//
// A PostgreSQL WAL position (pg_lsn) and the byte sizes freshness rules are written in (doc/freshness.md).
//

#ifndef BlueTusk_Lsn_INCLUDED
#define BlueTusk_Lsn_INCLUDED

#include "BlueTusk/Foundation.h"
#include "Poco/Types.h"
#include <string>

namespace BlueTusk {

class BlueTusk_Foundation_API Lsn
	/// A write-ahead log position as PostgreSQL's pg_lsn writes it: two hexadecimal numbers of at most 8
	/// digits, "16/B374D848" = 0x16B374D848 (PostgreSQL docs 8.20). 0/0 (the default) means "none" (the
	/// server's InvalidXLogRecPtr). Value semantics, totally ordered; immutable, so thread-safe to share.
	///
	/// It is also the read-your-writes token (BlueTuskConnection::walPosition(),
	/// BlueTuskDataSource::open(target, token)): toString() gives the text to carry to another process
	/// (an HTTP header, a cookie), parse() takes it back.
{
public:
	Lsn() = default;
		/// 0/0: no position.

	explicit Lsn(Poco::UInt64 value): _value(value)
	{
	}

	static Lsn parse(const std::string& text);
		/// "16/B374D848" (either letter case; surrounding white space ignored). Throws
		/// Poco::SyntaxException naming the text for anything else: no '/', empty halves, more than 8
		/// digits in a half, a character that is not a hexadecimal digit.

	static bool tryParse(const std::string& text, Lsn& result);
		/// As parse(), without throwing: false (result unchanged) for invalid text.

	std::string toString() const;
		/// "16/B374D848": upper-case digits, no leading zeros (as PostgreSQL prints it); "0/0" for none.

	Poco::UInt64 value() const
	{
		return _value;
	}

	bool isValid() const
		/// True for any position but 0/0.
	{
		return _value != 0;
	}

	static Poco::UInt64 bytesBehind(Lsn ahead, Lsn behind)
		/// How many bytes of WAL behind lies before ahead: ahead - behind, 0 when behind has reached it.
	{
		return ahead._value > behind._value ? ahead._value - behind._value : 0;
	}

	static Lsn recordEnd(Lsn insertPosition, Poco::UInt64 blockSize, Poco::UInt64 segmentSize);
		/// The end of the last record before insertPosition (pg_current_wal_insert_lsn()): PostgreSQL
		/// reports the insert position after the header of a page that is still empty (24 bytes, 40 at the
		/// start of a segment), which no standby ever replays to (its pg_last_wal_replay_lsn() stops at
		/// the page boundary until more WAL comes). Such a position is moved back to the boundary; any
		/// other is returned unchanged (no record ends inside a page header). blockSize and segmentSize:
		/// wal_block_size and wal_segment_size in bytes (0: that header is not corrected).

	bool operator == (Lsn other) const { return _value == other._value; }
	bool operator != (Lsn other) const { return _value != other._value; }
	bool operator < (Lsn other) const { return _value < other._value; }
	bool operator <= (Lsn other) const { return _value <= other._value; }
	bool operator > (Lsn other) const { return _value > other._value; }
	bool operator >= (Lsn other) const { return _value >= other._value; }

private:
	Poco::UInt64 _value = 0;
};


BlueTusk_Foundation_API Poco::UInt64 parseByteSize(const std::string& text, const std::string& keyword);
	/// A size in bytes written as PostgreSQL writes memory sizes in its configuration (PostgreSQL docs
	/// 20.1.1): a whole number, optionally followed (white space allowed) by one of the units B, kB, MB,
	/// GB, TB (multiples of 1024; the letter case as written there, as PostgreSQL requires). "0" is zero.
	/// Throws BlueTuskConnectionStringException naming keyword and the value for anything else (no
	/// number, a fraction, a sign, an unknown unit such as "mb" or "KB" with the accepted units listed,
	/// or a value beyond 2^63 bytes).

BlueTusk_Foundation_API std::string formatByteSize(Poco::UInt64 bytes);
	/// A size for messages: "512 bytes" below 1 kB, then one decimal in the largest unit that keeps the
	/// number at 1 or more: "4.2 MB", "1 MB" (a trailing ".0" is dropped), "3.5 GB". Units of 1024.

BlueTusk_Foundation_API std::string formatByteSizeSetting(Poco::UInt64 bytes);
	/// The inverse of parseByteSize for settings: the largest unit that divides bytes exactly ("1MB",
	/// "1536kB", "100B"... "0").

} // namespace BlueTusk

#endif // BlueTusk_Lsn_INCLUDED
