//
// BinaryCopyFuzzer.cpp
//
// libFuzzer target: BinaryCopyReader on arbitrary data. The first byte gives the column count (0-7,
// low 3 bits) and the chunk size (high 5 bits: 1-32 bytes per feed(), so tuples straddle chunks); the
// next two bytes per column pick its type OID and how its fields are read (Fuzz::readChosen: 0 as every
// C++ type, else one of them); the rest is the COPY data. Only BlueTuskProtocolException and
// BlueTuskUsageException (feed/finish) and BlueTuskTypeException (reads) may come out.
//

#include "BlueTusk/BinaryCopyReader.h"
#include "BlueTusk/BlueTuskException.h"
#include "FuzzValues.h"
#include <cstdint>

using namespace BlueTusk;


extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
	if (size < 1) return 0;
	const std::size_t columns = data[0] & 7;
	const std::size_t chunk = (data[0] >> 3) + 1;
	if (size < 1 + 2 * columns) return 0;
	const auto& oids = Fuzz::typeOids();
	std::vector<Poco::UInt32> types;
	std::vector<unsigned> reads;
	for (std::size_t i = 0; i < columns; ++i)
	{
		types.push_back(oids[data[1 + 2 * i] % oids.size()]);
		reads.push_back(data[2 + 2 * i]);
	}
	const char* copy = reinterpret_cast<const char*>(data + 1 + 2 * columns);
	const std::size_t copySize = size - 1 - 2 * columns;
	BinaryCopyReader reader(types, [&types, &reads](const RowView& row) {
		if (row.size() != types.size()) __builtin_trap();
		for (std::size_t i = 0; i < row.size(); ++i)
		{
			const FieldRef raw = row.raw(i);
			if (!raw) continue;
			FieldView field;
			field.typeOid = types[i];
			field.format = 1;
			field.data = raw->data();
			field.size = raw->size();
			Fuzz::readChosen(field, reads[i]);
			try
			{
				row.get<std::optional<std::string>>(i);
			}
			catch (BlueTuskTypeException&)
			{
			}
		}
	});
	try
	{
		for (std::size_t offset = 0; offset < copySize; offset += chunk)
			reader.feed(copy + offset, std::min(chunk, copySize - offset));
		reader.finish();
	}
	catch (BlueTuskProtocolException&)
	{
	}
	catch (BlueTuskUsageException&)
	{
	}
	return 0;
}
