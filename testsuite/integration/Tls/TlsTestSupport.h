//
// TlsTestSupport.h
//
// Helpers of the TLS integration tests: the cluster's certificate directory, sessions, one-value queries,
// and a private HOME (libpq's default files live in ~/.postgresql).
//

#ifndef BlueTusk_TlsTestSupport_INCLUDED
#define BlueTusk_TlsTestSupport_INCLUDED

#include "BlueTusk/ConnectionSettings.h"
#include "session/ProtocolSessionFactory.h"
#include "TestEnvironment.h"
#include "Poco/Environment.h"
#include "Poco/File.h"
#include "Poco/TemporaryFile.h"
#include <string>

namespace BlueTusk {
namespace Test {

inline std::string certs()
	/// "<clusterDir>/certs/" (scripts/cluster's CA, server, client certificates and CRLs).
{
	return cluster().clusterDir + "/certs/";
}


inline ProtocolSession::Ptr openSession(const ConnectionSettings& settings)
{
	ProtocolSessionFactory factory;
	return factory.openSession(settings.endpoints.at(0), settings);
}


inline std::string scalar(ProtocolSession& session, const std::string& sql)
	/// The first column of the first row of sql's result.
{
	return *session.executeSimple(sql).at(0).rows.at(0).at(0);
}


class HomeDirectory
	/// Points HOME at a fresh directory with an empty .postgresql for the scope. Not thread-safe (the
	/// environment is the process's).
{
public:
	HomeDirectory(): _previous(Poco::Environment::get("HOME", ""))
	{
		_directory.createDirectories();
		Poco::File(_directory.path() + "/.postgresql").createDirectories();
		Poco::Environment::set("HOME", _directory.path());
	}

	~HomeDirectory()
	{
		Poco::Environment::set("HOME", _previous);
	}

	std::string path() const
	{
		return _directory.path();
	}

private:
	std::string _previous;
	Poco::TemporaryFile _directory;
};

} } // namespace BlueTusk::Test

#endif // BlueTusk_TlsTestSupport_INCLUDED
