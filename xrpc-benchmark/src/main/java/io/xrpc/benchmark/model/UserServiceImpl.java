package io.xrpc.benchmark.model;

/** Answers from prebuilt payloads, so the benchmark measures the RPC path, not the service. */
public class UserServiceImpl implements UserService {
    private final User user = Payloads.user(1);
    private final Page<User> page = Payloads.page(1);

    @Override
    public boolean existUser(String email) {
        return email != null && !email.isEmpty();
    }

    @Override
    public boolean createUser(User u) {
        return u != null;
    }

    @Override
    public User getUser(long id) {
        return user;
    }

    @Override
    public Page<User> listUser(int pageNo) {
        return page;
    }
}
