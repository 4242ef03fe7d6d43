//
// DataException.h
//
// Library: BlueTusk/Data
//
// The exceptions of the Poco::Data connector "bluetusk", derived from Poco::Data's own.
//

#ifndef BlueTusk_Data_DataException_INCLUDED
#define BlueTusk_Data_DataException_INCLUDED

#include "BlueTusk/Foundation.h"
#include "BlueTusk/BlueTuskException.h"
#include "Poco/Data/DataException.h"

namespace BlueTusk {
namespace Data {

class BlueTusk_Data_API ConnectionException: public Poco::Data::ConnectionFailedException
	/// Opening (or reconnecting) a bluetusk session failed: a bad connection string, no acceptable host,
	/// authentication, or no pool capacity within the login timeout. The message is BlueTusk's (every
	/// endpoint tried and its outcome, never the password); nested() is the BlueTusk exception itself
	/// (e.g. a HostAttemptsException whose attempts() are the attempts as data).
{
public:
	ConnectionException(const std::string& message, const Poco::Exception& cause);
	ConnectionException(const std::string& message);
	ConnectionException(const ConnectionException& other);
	~ConnectionException() noexcept;
	ConnectionException& operator = (const ConnectionException& other);
	const char* name() const noexcept;
	const char* className() const noexcept;
	Poco::Exception* clone() const;
	void rethrow() const;
};


class BlueTusk_Data_API StatementException: public Poco::Data::ExecutionException
	/// The server rejected a statement (an ErrorResponse): sqlState() ("23505"), fields() (message,
	/// detail, hint, constraint, ...), and whether the session can go on (sessionUsable(): false after a
	/// FATAL error or a lost connection). The message is "<SQLSTATE>: <server message>" plus the SQL.
{
public:
	StatementException(const std::string& message, const BlueTuskServerException& cause);
	StatementException(const StatementException& other);
	~StatementException() noexcept;
	StatementException& operator = (const StatementException& other);
	const char* name() const noexcept;
	const char* className() const noexcept;
	Poco::Exception* clone() const;
	void rethrow() const;

	const std::string& sqlState() const;
	const BlueTuskServerException::Fields& fields() const;
	bool sessionUsable() const;

private:
	BlueTuskServerException::Fields _fields;
	bool _sessionUsable = true;
};

} } // namespace BlueTusk::Data

#endif // BlueTusk_Data_DataException_INCLUDED
