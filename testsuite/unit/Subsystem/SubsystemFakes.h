//
// SubsystemFakes.h
//
// Unit tests of DataSourceSubsystem: a SessionFactory whose sessions never touch the network.
//

#ifndef BlueTusk_Test_SubsystemFakes_INCLUDED
#define BlueTusk_Test_SubsystemFakes_INCLUDED

#include "BlueTusk/Session.h"
#include <atomic>
#include <map>
#include <mutex>
#include <string>

namespace BlueTusk {
namespace Test {

class SubsystemFakeFactory: public SessionFactory
	/// Opens fake sessions: each endpoint has a role (default primary); an endpoint marked down throws a
	/// BlueTuskTransportException ("refused"). Counts opens and live sessions. Thread-safe.
{
public:
	void setRole(const std::string& endpoint, ServerRole role);
	void setDown(const std::string& endpoint);

	Session::Ptr open(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings) override;

	int opened(const std::string& endpoint) const;
		/// Sessions opened to endpoint ("127.0.0.1:5432").

	int live() const;
		/// Sessions opened and not yet closed.

	std::atomic<int> liveCount{0};

private:
	mutable std::mutex _mutex;
	std::map<std::string, ServerRole> _roles;
	std::map<std::string, bool> _down;
	std::map<std::string, int> _opened;
};

} } // namespace BlueTusk::Test

#endif // BlueTusk_Test_SubsystemFakes_INCLUDED
