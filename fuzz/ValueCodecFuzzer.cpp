//
// ValueCodecFuzzer.cpp
//
// libFuzzer target: ValueCodec on arbitrary field bytes. The first byte picks the column's type OID
// (every OID of TypeOid.h and an unknown one), the second its format (even: text, odd: binary); the
// rest is the field, read as every C++ type (FuzzValues.h). Only BlueTuskTypeException may come out.
//

#include "FuzzValues.h"
#include <cstdint>

using namespace BlueTusk;


extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
	if (size < 2) return 0;
	const auto& oids = Fuzz::typeOids();
	FieldView field;
	field.typeOid = oids[data[0] % oids.size()];
	field.format = static_cast<Poco::Int16>(data[1] & 1);
	const std::string bytes(reinterpret_cast<const char*>(data + 2), size - 2); // exact size: ASan sees overreads
	field.data = bytes.data();
	field.size = bytes.size();
	Fuzz::readEveryType(field);
	return 0;
}
