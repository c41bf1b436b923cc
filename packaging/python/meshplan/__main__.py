from meshplan import main

main()
