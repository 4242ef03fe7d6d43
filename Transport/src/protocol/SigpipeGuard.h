//
// SigpipeGuard.h
//
// Library: BlueTusk/Transport
//
// Keeps a write to a closed peer from raising SIGPIPE in the calling thread (libpq's pq_block_sigpipe).
//

#ifndef BlueTusk_SigpipeGuard_INCLUDED
#define BlueTusk_SigpipeGuard_INCLUDED

#include <csignal>
#include <ctime>
#include <pthread.h>

namespace BlueTusk {
namespace Detail {

class SigpipeGuard
	/// While alive, SIGPIPE is blocked in this thread; on destruction a SIGPIPE raised meanwhile is
	/// consumed (sigtimedwait) and the previous signal mask restored. For writes OpenSSL makes (TLS
	/// records, close_notify), where MSG_NOSIGNAL cannot be passed. Plain sockets use MSG_NOSIGNAL.
{
public:
	SigpipeGuard()
	{
		sigset_t pipe;
		sigemptyset(&pipe);
		sigaddset(&pipe, SIGPIPE);
		_active = pthread_sigmask(SIG_BLOCK, &pipe, &_previous) == 0;
		if (_active)
		{
			sigset_t pending;
			sigemptyset(&pending);
			_wasPending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
		}
	}

	~SigpipeGuard()
	{
		if (!_active) return;
		if (!_wasPending)
		{
			sigset_t pending;
			sigemptyset(&pending);
			if (sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1)
			{
				sigset_t pipe;
				sigemptyset(&pipe);
				sigaddset(&pipe, SIGPIPE);
				const struct timespec zero = {0, 0};
				sigtimedwait(&pipe, nullptr, &zero);
			}
		}
		pthread_sigmask(SIG_SETMASK, &_previous, nullptr);
	}

	SigpipeGuard(const SigpipeGuard&) = delete;
	SigpipeGuard& operator = (const SigpipeGuard&) = delete;

private:
	sigset_t _previous;
	bool _active = false;
	bool _wasPending = false;
};

} } // namespace BlueTusk::Detail

#endif // BlueTusk_SigpipeGuard_INCLUDED
