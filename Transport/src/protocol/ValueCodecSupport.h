//
// ValueCodecSupport.h
//
// Library: BlueTusk/Transport
//
// What the scalar and the array halves of ValueCodec share.
//

#ifndef BlueTusk_Detail_ValueCodecSupport_INCLUDED
#define BlueTusk_Detail_ValueCodecSupport_INCLUDED

#include "BlueTusk/ValueCodec.h"
#include <string>

namespace BlueTusk {
namespace Detail {

[[noreturn]] void conversionError(const FieldView& field, const char* cppType, const std::string& reason);
	/// Throws BlueTuskTypeException "<PostgreSQL type> cannot be read as <cppType>: <reason>".

std::string fieldText(const FieldView& field);
	/// The field's bytes as a string.

std::string arrayText(const FieldView& field);
	/// A binary one-dimensional array in PostgreSQL's text form ("{1,2,NULL}", elements quoted as
	/// array_out quotes them). Throws BlueTuskTypeException for malformed or multi-dimensional data.

} } // namespace BlueTusk::Detail

#endif // BlueTusk_Detail_ValueCodecSupport_INCLUDED
