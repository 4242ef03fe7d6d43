//
// ProcessMemory.h
//
// The process's resident memory from /proc/self/status (Linux, proc(5)): the current RSS and its peak
// (VmHWM), and a reset of the peak (writing "5" to /proc/self/clear_refs, Linux 4.0+), so a test or a
// benchmark can measure how much one step raised the peak.
//

#ifndef BlueTusk_ProcessMemory_INCLUDED
#define BlueTusk_ProcessMemory_INCLUDED

#include <fstream>
#include <string>

namespace BlueTusk {
namespace Test {

inline long statusKilobytes(const std::string& field)
	/// The value of field ("VmRSS", "VmHWM") in kB, or -1 when /proc/self/status lacks it.
{
	std::ifstream status("/proc/self/status");
	std::string line;
	while (std::getline(status, line))
	{
		if (line.compare(0, field.size() + 1, field + ":") == 0) return std::stol(line.substr(field.size() + 1));
	}
	return -1;
}


inline bool resetPeakResident()
	/// Sets VmHWM to the current RSS. False when the kernel does not allow it.
{
	std::ofstream clear("/proc/self/clear_refs");
	clear << "5";
	clear.flush();
	return static_cast<bool>(clear);
}

} } // namespace BlueTusk::Test

#endif // BlueTusk_ProcessMemory_INCLUDED
