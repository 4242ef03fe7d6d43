//
// MessageDecoding.h
//
// Library: BlueTusk/Transport
//
// Internal: decoding of the backend messages on a query's hot path straight from the reader's buffer
// (MessageReader::View), without copying their bodies into a BackendMessage (doc/performance.md,
// "Pass 3"). BackendMessage's methods of the same names use them; type names the message in errors.
//

#ifndef BlueTusk_MessageDecoding_INCLUDED
#define BlueTusk_MessageDecoding_INCLUDED

#include "BlueTusk/QueryResult.h"
#include <cstddef>
#include <string>
#include <vector>

namespace BlueTusk {
namespace Detail {

std::vector<ColumnDescription> decodeRowDescription(char type, const char* body, std::size_t length);
	/// RowDescription ('T'); throws BlueTuskProtocolException when malformed.

Row decodeDataRow(char type, const char* body, std::size_t length, std::size_t expectedColumns);
	/// DataRow ('D') of expectedColumns values, each built in place; throws BlueTuskProtocolException.

void decodeCommandComplete(char type, const char* body, std::size_t length, std::string& tag);
	/// CommandComplete ('C'): its tag into tag (whose capacity is reused); throws BlueTuskProtocolException.

char decodeReadyForQuery(char type, const char* body, std::size_t length);
	/// ReadyForQuery ('Z'): the transaction status 'I', 'T' or 'E'; throws BlueTuskProtocolException.

} } // namespace BlueTusk::Detail

#endif // BlueTusk_MessageDecoding_INCLUDED
