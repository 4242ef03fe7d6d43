//
// ValueCodecFuzzer.cpp
//
// libFuzzer target: ValueCodec on arbitrary field bytes. The first byte picks the column's type OID
// (every OID of TypeOid.h and an unknown one), the second its format (bit 0, even: text, odd: binary)
// and the read (the other bits, Fuzz::readChosen: 0 every C++ type, else one of them); the rest is the
// field. Only BlueTuskTypeException may come out.
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
	Fuzz::readChosen(field, data[1] >> 1);
	return 0;
}
