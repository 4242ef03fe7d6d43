//
// FieldConversion.h
//
// Library: BlueTusk/Data
//
// Poco::Data's lenient conversions of one non-NULL field into each type an extractor is asked for.
//

#ifndef BlueTusk_Data_Detail_FieldConversion_INCLUDED
#define BlueTusk_Data_Detail_FieldConversion_INCLUDED

#include "BlueTusk/QueryResult.h"
#include "Poco/Any.h"
#include "Poco/Data/Date.h"
#include "Poco/Data/LOB.h"
#include "Poco/Data/Time.h"
#include "Poco/DateTime.h"
#include "Poco/Dynamic/Var.h"
#include "Poco/UTFString.h"
#include "Poco/UUID.h"
#include <string>

namespace BlueTusk {
namespace Data {
namespace Detail {

struct Field
	/// A non-NULL field and its column, with the column's 1-based number for messages.
{
	const ColumnDescription& column;
	std::string_view bytes;   // in the result's arena (ResultRows)
	std::size_t number;

	FieldView view() const
	{
		return FieldView{column.typeOid, column.formatCode, bytes.data(), bytes.size()};
	}
};

void convert(const Field& field, Poco::Int64& value);     ///< integers, bool (0/1), numbers in text
void convert(const Field& field, Poco::UInt64& value);
void convert(const Field& field, bool& value);
void convert(const Field& field, double& value);
void convert(const Field& field, float& value);
void convert(const Field& field, char& value);
void convert(const Field& field, std::string& value);
void convert(const Field& field, Poco::UTF16String& value);
void convert(const Field& field, Poco::Data::BLOB& value);
void convert(const Field& field, Poco::Data::CLOB& value);
void convert(const Field& field, Poco::DateTime& value);
void convert(const Field& field, Poco::Data::Date& value);
void convert(const Field& field, Poco::Data::Time& value);
void convert(const Field& field, Poco::UUID& value);
void convert(const Field& field, Poco::Any& value);
void convert(const Field& field, Poco::Dynamic::Var& value);

[[noreturn]] void conversionFailed(const Field& field, const char* cppType, const std::string& reason);
	/// Throws Poco::Data::ExtractException "column <n> \"<name>\" (<type>): cannot extract into <cppType>: <reason>".

} } } // namespace BlueTusk::Data::Detail

#endif // BlueTusk_Data_Detail_FieldConversion_INCLUDED
