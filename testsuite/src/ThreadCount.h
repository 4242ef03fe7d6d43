//
// ThreadCount.h
//
// The process's threads as Linux lists them (/proc/self/task, proc(5)), and a count that lets a thread the
// test just joined finish leaving. pthread_join() returns when the exiting thread clears its tid (the
// CLONE_CHILD_CLEARTID futex wake in the kernel's exit path), which comes before the kernel removes the task
// from /proc: for a moment a joined thread is still listed. On this machine about 1 join in 2,000 is seen
// that way by a count taken right after it, more under ThreadSanitizer and load. A test asserting "no thread
// left behind" therefore waits, with a deadline, for the count to come down; a thread really left running
// keeps it up and fails the test.
//

#ifndef BlueTusk_ThreadCount_INCLUDED
#define BlueTusk_ThreadCount_INCLUDED

#include "Poco/Clock.h"
#include "Poco/Thread.h"
#include <dirent.h>
#include <functional>

namespace BlueTusk {
namespace Test {

inline int threadCount()
	/// The number of threads of this process (entries of /proc/self/task), or -1 when it cannot be read.
{
	DIR* tasks = opendir("/proc/self/task");
	if (!tasks) return -1;
	int count = 0;
	while (dirent* task = readdir(tasks))
	{
		if (task->d_name[0] != '.') ++count;
	}
	closedir(tasks);
	return count;
}


inline int settledCount(const std::function<int()>& count, int expected, int timeoutMs = 2000)
	/// count() as soon as it is at most expected, else its value after timeoutMs (milliseconds), polled
	/// every 5 ms: threads joined just before are given time to leave /proc (see above).
{
	Poco::Clock start;
	int now = count();
	while (now > expected && start.elapsed() < static_cast<Poco::Clock::ClockDiff>(timeoutMs) * 1000)
	{
		Poco::Thread::sleep(5);
		now = count();
	}
	return now;
}


inline int settledThreadCount(int expected, int timeoutMs = 2000)
	/// settledCount() of threadCount(): assert CPPUNIT_ASSERT_EQUAL(before, settledThreadCount(before)).
{
	return settledCount(threadCount, expected, timeoutMs);
}

} } // namespace BlueTusk::Test

#endif // BlueTusk_ThreadCount_INCLUDED
