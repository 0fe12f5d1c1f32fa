package io.xrpc.benchmark.stress;

import io.xrpc.benchmark.model.Page;
import io.xrpc.benchmark.model.User;
import io.xrpc.benchmark.model.UserService;
import io.xrpc.benchmark.model.UserServiceImpl;
import java.util.function.LongConsumer;

/** The demo UserService with {@code onGetUser} run before each getUser (to count, or to pace it). */
final class HookedUsers implements UserService {
    private final UserServiceImpl real = new UserServiceImpl();
    private final LongConsumer onGetUser;

    HookedUsers(LongConsumer onGetUser) {
        this.onGetUser = onGetUser;
    }

    @Override
    public boolean existUser(String email) {
        return real.existUser(email);
    }

    @Override
    public boolean createUser(User user) {
        return real.createUser(user);
    }

    @Override
    public User getUser(long id) {
        onGetUser.accept(id);
        return real.getUser(id);
    }

    @Override
    public Page<User> listUser(int pageNo) {
        return real.listUser(pageNo);
    }
}
