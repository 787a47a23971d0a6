// Time and sleeping, injected into the guard so policy tests run with fakes.
#pragma once

namespace wmb {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual double now() = 0;  // monotonic seconds
};

class Sleeper {
 public:
  virtual ~Sleeper() = default;
  virtual void sleep(double seconds) = 0;
  // True once a wait should end early (SIGINT/SIGTERM/SIGHUP to wmbench): every wait loop asks.
  virtual bool interrupted() const { return false; }
};

class SteadyClock : public Clock {
 public:
  double now() override;
};

class RealSleeper : public Sleeper {
 public:
  void sleep(double seconds) override;
};

}  // namespace wmb
