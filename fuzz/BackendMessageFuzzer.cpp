//
// BackendMessageFuzzer.cpp
//
// libFuzzer target: arbitrary bytes as the stream of backend messages the Transport reads. The first
// byte gives the chunk size (1-256 bytes per MessageReader::feed(), so messages straddle reads); the
// rest goes through MessageReader (1 MiB limit for long types, 30000 bytes for others) and every
// complete message through the BackendMessage decoder of its type, as ProtocolSession would: a
// RowDescription sets the columns the next DataRows must match, and every field of a DataRow is read
// in its column's type and format the way the column's table OID chooses (Fuzz::readChosen: 0, as for
// a computed column, as every C++ type, else one read; no decoder looks at the table OID, so it is free
// for the fuzzer to set); a DataRow also goes through ResultRows::appendDataRow, which must agree with
// dataRow() on every body (accepted or not, values, message). Only BlueTuskProtocolException
// (framing, malformed messages) and BlueTuskTypeException (reads) may come out; memory stays bounded
// by the reader's limits (libFuzzer's -rss_limit_mb / -malloc_limit_mb catch the rest).
//

#include "protocol/BackendMessage.h"
#include "BlueTusk/BlueTuskException.h"
#include "protocol/MessageReader.h"
#include "FuzzValues.h"
#include <cstdint>

using namespace BlueTusk;

namespace {

void decode(const BackendMessage& message, std::vector<ColumnDescription>& columns)
{
	switch (message.type)
	{
	case 'E': case 'N':
		{
			const BlueTuskServerException::Fields fields = message.errorFields();
			BlueTuskServerException exception(fields);
			(void) exception.displayText();
		}
		break;
	case 'S': message.parameterStatus(); break;
	case 'K': message.backendKeyData(); break;
	case 'Z': message.readyForQuery(); break;
	case 'T': columns = message.rowDescription(); break;
	case 'D':
		{
			// The held rows' packed decoder (ResultRows::appendDataRow) must accept exactly what dataRow()
			// accepts, with the same message, and read back the same values.
			ResultRows packed;
			std::string packedError;
			try
			{
				packed.appendDataRow(message.body.data(), message.body.size(), columns.size());
			}
			catch (BlueTuskProtocolException& exc)
			{
				packedError = exc.message();
			}
			Row row;
			try
			{
				row = message.dataRow(columns.size());
			}
			catch (BlueTuskProtocolException& exc)
			{
				if (exc.message() != packedError || !packed.empty()) __builtin_trap();
				throw;
			}
			if (!packedError.empty() || packed.size() != 1 || !(Row(packed[0]) == row)) __builtin_trap();
			for (std::size_t i = 0; i < row.size(); ++i)
			{
				if (!row[i]) continue;
				FieldView field;
				field.typeOid = columns[i].typeOid;
				field.format = columns[i].formatCode;
				field.data = row[i]->data();
				field.size = row[i]->size();
				Fuzz::readChosen(field, columns[i].tableOid);
			}
		}
		break;
	case 't': message.parameterDescription(); break;
	case 'A': message.notification(); break;
	case 'C': message.commandComplete(); break;
	case 'R':
		{
			const Poco::Int32 code = message.authenticationCode();
			message.authenticationData();
			if (code == 10) message.saslMechanisms();
		}
		break;
	default:
		(void) message.typeName();
		break;
	}
}

} // namespace


extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
	if (size < 1) return 0;
	const std::size_t chunk = std::size_t(data[0]) + 1;
	const char* stream = reinterpret_cast<const char*>(data + 1);
	const std::size_t streamSize = size - 1;
	MessageReader reader(std::size_t(1) << 20);
	std::vector<ColumnDescription> columns;
	BackendMessage message;
	try
	{
		for (std::size_t offset = 0; offset < streamSize; offset += chunk)
		{
			reader.feed(stream + offset, std::min(chunk, streamSize - offset));
			while (reader.next(message))
			{
				try
				{
					decode(message, columns);
				}
				catch (BlueTuskProtocolException&)
				{
					// a malformed message: ProtocolSession breaks the session; the fuzzer reads on to
					// reach later messages (the framing itself is intact)
				}
			}
		}
	}
	catch (BlueTuskProtocolException&)
	{
		// invalid or oversized length: the stream cannot be framed further
	}
	return 0;
}
