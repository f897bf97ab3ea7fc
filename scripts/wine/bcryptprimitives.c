// ProcessPrng for wine 8 (Debian 12), which lacks bcryptprimitives.dll.
//
// Go >= 1.22 gets its random numbers from ProcessPrng in bcryptprimitives.dll and
// refuses to start without it ("fatal error: bcryptprimitives.dll not found"). Every
// Windows 10/11 ships that DLL; wine added it only after 8.0. scripts/windows-test.sh
// builds this file with mingw-w64 into the test's wine prefix (system32) so carrel.exe
// can start there. It draws from RtlGenRandom (advapi32's SystemFunction036), the
// generator wine's own bcrypt uses. Nothing of this ships with Carrel.
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length); // RtlGenRandom

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size) {
    while (size > 0) {
        ULONG n = size > 0x40000000 ? 0x40000000 : (ULONG)size;
        if (!SystemFunction036(data, n)) {
            return FALSE;
        }
        data += n;
        size -= n;
    }
    return TRUE;
}
