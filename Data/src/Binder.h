//
// Binder.h
//
// Library: BlueTusk/Data
//
// Turns the values Poco::Data binds (use(), bind(), bulk) into BlueTusk statement parameters.
//

#ifndef BlueTusk_Data_Binder_INCLUDED
#define BlueTusk_Data_Binder_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/Parameter.h"
#include "Poco/Data/AbstractBinder.h"
#include "Poco/Data/LOB.h"
#include "Poco/Data/Date.h"
#include "Poco/Data/Time.h"
#include <deque>
#include <list>
#include <vector>

namespace BlueTusk {
namespace Data {

class BlueTusk_Data_API Binder: public Poco::Data::AbstractBinder
	/// Collects one execution's parameters ($1..$n, by position) as BlueTusk Parameter values, or, for
	/// bulk binding (use(vector, bulk)), one Parameter column per position. Each Poco type becomes the
	/// parameter it naturally is (Parameter.h): integers of every width (uint64 above 2^63-1 refused),
	/// bool, float, double, a char as a one-character string, std::string, UTF16String (as UTF-8), BLOB as
	/// bytea, CLOB as text, DateTime as timestamptz (its fields read as UTC, microseconds kept), Date as
	/// date, Time as time, UUID as uuid, NULL. At execution each is converted to the type the server
	/// inferred for its placeholder when that loses nothing.
	///
	/// Only input parameters exist in PostgreSQL's protocol: PD_OUT and PD_IN_OUT throw
	/// Poco::Data::NotSupportedException. Not thread-safe (one per statement).
{
public:
	using Ptr = Poco::SharedPtr<Binder>;

	Binder();
	~Binder();

	void bind(std::size_t pos, const Poco::Int8& val, Direction dir = PD_IN);
	void bind(std::size_t pos, const Poco::UInt8& val, Direction dir = PD_IN);
	void bind(std::size_t pos, const Poco::Int16& val, Direction dir = PD_IN);
	void bind(std::size_t pos, const Poco::UInt16& val, Direction dir = PD_IN);
	void bind(std::size_t pos, const Poco::Int32& val, Direction dir = PD_IN);
	void bind(std::size_t pos, const Poco::UInt32& val, Direction dir = PD_IN);
	void bind(std::size_t pos, const Poco::Int64& val, Direction dir = PD_IN);
	void bind(std::size_t pos, const Poco::UInt64& val, Direction dir = PD_IN);
#ifndef POCO_INT64_IS_LONG
	void bind(std::size_t pos, const long& val, Direction dir = PD_IN);
	void bind(std::size_t pos, const unsigned long& val, Direction dir = PD_IN);
#endif
	void bind(std::size_t pos, const bool& val, Direction dir = PD_IN);
	void bind(std::size_t pos, const float& val, Direction dir = PD_IN);
	void bind(std::size_t pos, const double& val, Direction dir = PD_IN);
	void bind(std::size_t pos, const char& val, Direction dir = PD_IN);
	void bind(std::size_t pos, const char* const& pVal, Direction dir = PD_IN);
	void bind(std::size_t pos, const std::string& val, Direction dir = PD_IN);
	void bind(std::size_t pos, const Poco::UTF16String& val, Direction dir = PD_IN);
	void bind(std::size_t pos, const Poco::Data::BLOB& val, Direction dir = PD_IN);
	void bind(std::size_t pos, const Poco::Data::CLOB& val, Direction dir = PD_IN);
	void bind(std::size_t pos, const Poco::DateTime& val, Direction dir = PD_IN);
	void bind(std::size_t pos, const Poco::Data::Date& val, Direction dir = PD_IN);
	void bind(std::size_t pos, const Poco::Data::Time& val, Direction dir = PD_IN);
	void bind(std::size_t pos, const Poco::UUID& val, Direction dir = PD_IN);
	void bind(std::size_t pos, const Poco::Data::NullData& val, Direction dir = PD_IN);

#define BLUETUSK_BIND_CONTAINERS(T) \
	void bind(std::size_t pos, const std::vector<T>& val, Direction dir = PD_IN); \
	void bind(std::size_t pos, const std::deque<T>& val, Direction dir = PD_IN); \
	void bind(std::size_t pos, const std::list<T>& val, Direction dir = PD_IN);
	BLUETUSK_BIND_CONTAINERS(Poco::Int8)
	BLUETUSK_BIND_CONTAINERS(Poco::UInt8)
	BLUETUSK_BIND_CONTAINERS(Poco::Int16)
	BLUETUSK_BIND_CONTAINERS(Poco::UInt16)
	BLUETUSK_BIND_CONTAINERS(Poco::Int32)
	BLUETUSK_BIND_CONTAINERS(Poco::UInt32)
	BLUETUSK_BIND_CONTAINERS(Poco::Int64)
	BLUETUSK_BIND_CONTAINERS(Poco::UInt64)
	BLUETUSK_BIND_CONTAINERS(bool)
	BLUETUSK_BIND_CONTAINERS(float)
	BLUETUSK_BIND_CONTAINERS(double)
	BLUETUSK_BIND_CONTAINERS(char)
	BLUETUSK_BIND_CONTAINERS(std::string)
	BLUETUSK_BIND_CONTAINERS(Poco::UTF16String)
	BLUETUSK_BIND_CONTAINERS(Poco::Data::BLOB)
	BLUETUSK_BIND_CONTAINERS(Poco::Data::CLOB)
	BLUETUSK_BIND_CONTAINERS(Poco::DateTime)
	BLUETUSK_BIND_CONTAINERS(Poco::Data::Date)
	BLUETUSK_BIND_CONTAINERS(Poco::Data::Time)
	BLUETUSK_BIND_CONTAINERS(Poco::UUID)
	BLUETUSK_BIND_CONTAINERS(Poco::Data::NullData)
#undef BLUETUSK_BIND_CONTAINERS

	void reset();
		/// Forgets the values bound (Poco calls it before each bind round).

	const Parameters& parameters() const;
		/// One execution's values, by position.

	bool isBulk() const;
		/// True when containers were bound (bulk binding).

	std::vector<Parameters> bulkRows() const;
		/// The bulk columns as rows: one Parameters per container element. Throws
		/// Poco::Data::BindingException when the containers' sizes differ.

private:
	void set(std::size_t pos, Parameter value, Direction dir);
	void setColumn(std::size_t pos, std::vector<Parameter> column, Direction dir);
	template <typename C> void bindContainer(std::size_t pos, const C& values, Direction dir);

	Parameters _parameters;
	std::vector<std::vector<Parameter>> _columns;
};

} } // namespace BlueTusk::Data

#endif // BlueTusk_Data_Binder_INCLUDED
