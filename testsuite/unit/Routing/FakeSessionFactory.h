//
// FakeSessionFactory.h
//
// A scripted SessionFactory for the Routing unit tests: per endpoint, the role the server plays, how an open
// fails, and how long it takes; counts opens, probes and live sessions per endpoint. No network.
//

#ifndef BlueTusk_Test_FakeSessionFactory_INCLUDED
#define BlueTusk_Test_FakeSessionFactory_INCLUDED

#include "BlueTusk/Session.h"
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace BlueTusk {
namespace Test {

struct FakeHost
	/// How one fake endpoint behaves.
{
	enum Failure
	{
		NONE,         /// the open succeeds after delayMs with role
		REFUSED,      /// BlueTuskTransportException, REFUSED, at once (after delayMs)
		BLACK_HOLE,   /// waits the whole Timeout, then BlueTuskTransportException TIMED_OUT
		EARLY_CLOSE,  /// BlueTuskTransportException, CLOSED ("server closed the connection unexpectedly")
		SQLSTATE,     /// BlueTuskServerException FATAL with sqlState / message (57P03, 53300, 28P01, 3D000)
		AUTH_SIGNATURE/// BlueTuskAuthenticationException (SCRAM server signature did not verify)
	};

	ServerRole role = ServerRole::Primary;
	Failure failure = NONE;
	std::string sqlState;
	std::string message;
	int delayMs = 0;

	static FakeHost primary(int delayMs = 0);
	static FakeHost primaryReadOnly(int delayMs = 0);
	static FakeHost standby(int delayMs = 0);
	static FakeHost refused();
	static FakeHost blackHole();
	static FakeHost earlyClose();
	static FakeHost startingUp();        /// 57P03 the database system is starting up
	static FakeHost tooManyConnections();/// 53300 sorry, too many clients already
	static FakeHost badPassword();       /// 28P01 password authentication failed for user "app"
	static FakeHost badSignature();
};


class FakeSessionFactory: public SessionFactory
	/// Thread-safe. Endpoints not scripted behave as FakeHost::primary().
{
public:
	using Ptr = std::shared_ptr<FakeSessionFactory>;

	FakeSessionFactory();
	~FakeSessionFactory();

	void script(const std::string& endpoint, const FakeHost& host);
		/// endpoint in display form, "a:5432".

	void setRole(const std::string& endpoint, ServerRole role);
		/// Changes the role the server plays now (promotion): forced probes of existing sessions see it.

	int opens(const std::string& endpoint) const;      /// open attempts made to endpoint
	int connections(const std::string& endpoint) const;/// successful opens
	int probes(const std::string& endpoint) const;     /// probe round trips (forced or first)
	int live(const std::string& endpoint) const;       /// sessions open now (not closed)
	int totalOpens() const;
	int totalLive() const;
	int cancelled() const;                             /// opens abandoned through OpenCancellation
	void resetCounters();

	Session::Ptr open(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings) override;
	Session::Ptr openCancellable(const BlueTuskHostEndpoint& endpoint, const ConnectionSettings& settings,
		const OpenCancellation& cancellation) override;

	struct State;

private:
	std::shared_ptr<State> _state;
};

} } // namespace BlueTusk::Test

#endif // BlueTusk_Test_FakeSessionFactory_INCLUDED
