//
// RetryPolicy.h
//
// Library: BlueTusk/Routing
//
// The retry policy family (doc/plugins.md, doc/outcomes.md): whether BlueTuskDataSource::runInTransaction()
// runs a unit of work again after a retryable failure, and after how long. The standard implementations
// are a plugin (Plugins/Retry).
//

#ifndef BlueTusk_RetryPolicy_INCLUDED
#define BlueTusk_RetryPolicy_INCLUDED

#include "BlueTusk/Foundation.h"
#include "Poco/Timespan.h"
#include "Poco/Util/AbstractConfiguration.h"
#include <memory>
#include <string>

namespace BlueTusk {

enum class RetryCause
	/// Why an attempt of a unit of work failed in a way that may be retried.
{
	Failover,              /// the connection was lost (not during COMMIT), the server went away (class 08,
	                       /// 57P01-57P03), or no writable server could be found (routing, pool timeout)
	SerializationFailure,  /// SQLSTATE 40001 (PostgreSQL docs 13.2.3: retry the whole transaction)
	Deadlock,              /// SQLSTATE 40P01
	RolledBackAtCommit     /// COMMIT lost its answer and the resolution found it rolled back
	                       /// (BlueTuskTransactionRolledBackException): nothing of it is on the primary
};

BlueTusk_Routing_API std::string toString(RetryCause cause);
	/// "failover", "serialization failure", "deadlock", "rolled back at commit".


struct BlueTusk_Routing_API RetryContext
	/// What a retry policy knows of the attempt that just failed.
{
	unsigned attempt = 1;          /// the attempt that failed (1 for the first)
	RetryCause cause = RetryCause::Failover;
	bool readOnly = false;         /// the unit of work was declared read-only (TransactionOptions::readOnly)
	Poco::Timespan elapsed;        /// since the first attempt began (monotonic clock)
};


class BlueTusk_Routing_API RetryPolicy
	/// Decides whether a unit of work runs again. runInTransaction() asks only after a retryable failure
	/// (RetryCause); never after a commit that succeeded or whose outcome is unknown, and never for other
	/// errors. Implementations must be thread-safe (const, no shared mutable state): one instance serves
	/// every caller of a connector.
	///
	/// A plugin exports its implementations with POCO_BEGIN_MANIFEST(BlueTusk::RetryPolicy) and
	/// POCO_EXPORT_INTERFACE(MyPolicy, "my-name"); runInTransaction(work, "my-name") selects it.
{
public:
	using Ptr = std::shared_ptr<RetryPolicy>;

	RetryPolicy();
	virtual ~RetryPolicy();

	virtual std::string name() const = 0;
		/// The name that selects this policy ("default").

	virtual bool retry(const RetryContext& context, Poco::Timespan& delay) const = 0;
		/// True to run the unit of work again after waiting delay (set it; 0 for none). The caller bounds the
		/// wait: a delay that would end beyond the policy's budget() is not waited and the failure is
		/// thrown instead.

	virtual Poco::Timespan budget() const = 0;
		/// The most time the attempts and waits of one runInTransaction() may take together: no new attempt
		/// starts once it is spent.

	virtual void configure(const Poco::Util::AbstractConfiguration& config);
		/// Policy properties, as HostOrderPolicy::configure() receives them: the subsystem calls it once on
		/// every retry policy loaded into a data source's routing context when the data source has
		/// bluetusk.dataSources.<name>.policy.* properties, before the data source is created (so
		/// runInTransaction(work, "<name>") on that data source uses the configured instance). Throw a
		/// Poco::Exception to refuse them. The default ignores them.

private:
	RetryPolicy(const RetryPolicy&) = delete;
	RetryPolicy& operator = (const RetryPolicy&) = delete;
};

} // namespace BlueTusk

#endif // BlueTusk_RetryPolicy_INCLUDED
